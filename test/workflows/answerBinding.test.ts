/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only test: runs docs/proof.md's OpenSSL command as a user would */
/**
 * The answer belongs to the question, whatever sits on the way: the customer inside the
 * signature, listings that are whole at one moment, no replays, masked bank details, and a proof
 * that an auditor can verify again with OpenSSL alone.
 */
import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { publicKeyFrom } from '../../nodes/PartnerAccountInquiry/shared/core/signing/keys';
import { createCustomers, type Beneficiary } from '../../sandbox/data';
import { readSandboxKey } from '../../sandbox/server';
import { list, listedAs, QUOTA, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
const LARGE = createCustomers().get('CUST_LARGE')?.beneficiaries as Beneficiary[];
/** CUST_SMALL's beneficiaries as listed (each with whoseAccount). */
const SMALL = listedAs(createCustomers().get('CUST_SMALL')?.beneficiaries as Beneficiary[], 'CUST_SMALL');
const bodies = () => sim().requests.map((r) => JSON.parse(r.body) as IDataObject);

describe('the customer is part of what is signed', () => {
	it('travels in the signed body, with no Connected-CustomerId header', async () => {
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' });
		expect(run.json).toEqual(SMALL);
		expect(bodies()[0]).toEqual({ pageSize: 50, pageNumber: 1, customerId: 'CUST_SMALL' });
		expect(sim().requests[0].headers['connected-customerid']).toBeUndefined();
	});

	it("a proxy that drops the customer header cannot turn the question into another account's list", async () => {
		sim().addFault({ fault: 'dropCustomerHeader', operation: 'list' });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' });
		expect(run.status).toBe('success');
		expect(run.json).toEqual(SMALL);
	});

	it('a proxy that rewrites the customer breaks the signature: nothing is emitted', async () => {
		sim().addFault({ fault: 'rewriteCustomer', operation: 'list', to: 'CUST_LARGE' });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' });
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/INVALID_SIGNATURE/);
	});

	it('a customer ID in any script is sent as it is, inside the signature', async () => {
		const run = await list(sim(), { returnAll: true, customerId: '客户01' });
		expect(run.error?.message).toMatch(/USER_NOT_EXIST/);
		expect(bodies()[0].customerId).toBe('客户01');
	});
});

describe('a listing read across pages is whole at one moment', () => {
	const before = listedAs(LARGE, 'CUST_LARGE');
	const after = () => listedAs(sim().beneficiaries('CUST_LARGE'), 'CUST_LARGE');

	// The change lands right after page N is answered, while the other pages of the first read are
	// in flight (8 at once): page N (and those answered before it) are of the list before, those
	// answered after it of the list after. Page N itself differs between the two lists, so the
	// first read is never the list after: only the confirming reads can tell. The list after is
	// returned, after a third read agreed with the second.
	it.each([
		[0, 1],
		[49, 2],
		[120, 3],
		[160, 4],
		[10, 6],
	])(
		'one beneficiary unbound at position %i and another bound at the end right after page %i is read: the list after, never a mix',
		async (position, pageNumber) => {
			sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber, position, times: 1 });
			const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
			expect(run.status).toBe('success');
			expect(JSON.stringify(after())).not.toBe(JSON.stringify(before));
			expect(run.json).toEqual(after());
			// The first read differed from the second; the third agreed with the second.
			expect(sim().requests).toHaveLength(3 * 7);
		},
	);

	it('pages read at once: the list before or the list after, never a mix', async () => {
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 0, times: 1 });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
		expect(run.status).toBe('success');
		expect([JSON.stringify(before), JSON.stringify(after())]).toContain(JSON.stringify(run.json));
	});

	it('a list that keeps changing fails after 4 reads, naming why and what to do, and emits nothing', async () => {
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10 });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toBe('CUST_LARGE beneficiaries: The beneficiary list changed while it was being read');
		expect(run.error?.description).toMatch(
			/^Page \d+ was not the same at two reads in a row .* It was read 4 times and no two reads in a row agreed; .* Run the node again once the beneficiaries stop changing\.$/,
		);
		expect(sim().requests).toHaveLength(4 * 7);
	});

	it('reads a single page once: one answer is one moment', async () => {
		const run = await list(sim(), { returnAll: false, limit: 50, customerId: 'CUST_LARGE' });
		expect(run.json).toEqual(before.slice(0, 50));
		expect(sim().requests).toHaveLength(1);
	});
});

describe('bank details are masked in every message', () => {
	it('the "gateway ignored the filter" error shows account numbers by their last four characters only', async () => {
		const wanted = LARGE.find((b) => b.bankAccountNo) as Beneficiary;
		sim().addFault({ fault: 'ignoreFilters', customerId: 'CUST_LARGE' });
		const run = await list(sim(), {
			returnAll: true,
			filters: { bankAccountNo: wanted.bankAccountNo },
			customerId: 'CUST_LARGE',
		});
		expect(run.status).toBe('error');
		const text = JSON.stringify(run.error);
		expect(run.error?.message).toBe('CUST_LARGE beneficiaries: The gateway ignored the Bank Account Number filter');
		expect(run.error?.description).toContain(`"****${(wanted.bankAccountNo as string).slice(-4)}"`);
		for (const b of LARGE) {
			if (b.bankAccountNo) expect(text).not.toContain(b.bankAccountNo);
		}
	});

	it('account numbers and IBANs in text the gateway wrote are masked too', async () => {
		sim().addFault({
			fault: 'answer',
			operation: 'list',
			answer: {
				status: 'F',
				code: 'PROCESS_FAIL',
				message: 'Accounts GB29NWBK60161331926819 and 6222021234567890 are frozen (ref 42)',
			},
		});
		const run = await list(sim(), { returnAll: true }, { continueOnFail: true });
		expect(run.json[0].resultMessage).toBe('Accounts ****6819 and ****7890 are frozen (ref 42)');
		const text = JSON.stringify(run.json);
		expect(text).not.toContain('GB29NWBK60161331926819');
		expect(text).not.toContain('6222021234567890');
	});

	it('a bank filter value the gateway echoes is masked exactly, whatever it looks like', async () => {
		sim().addFault({ fault: 'echoInResult', operation: 'list' });
		const run = await list(
			sim(),
			{ returnAll: true, filters: { bankAccountNo: 'AB1234567' } },
			{ continueOnFail: true },
		);
		expect(String(run.json[0].resultMessage)).toContain('****4567');
		expect(JSON.stringify(run.json)).not.toContain('AB1234567');
	});

	it('a quota answer about another receiving account names both by their last four characters', async () => {
		sim().addFault({ fault: 'foreignQuota' });
		const run = await quota(sim(), {
			quotaAccumulationMethod: 'RECEIVING_ACCOUNT',
			quotaAccumulationId: 'RA-JPY',
			currency: 'JPY',
		});
		// Whose quota and which, its account by its last four, then both accounts by theirs (in the detail).
		expect(run.error?.message).toBe(
			'own RECEIVING_ACCOUNT ****-JPY JPY: The quota answer is about another Accumulation ID',
		);
		expect(run.error?.description).toContain('"****ELSE", not the "****-JPY" asked for');
		expect(JSON.stringify(run.error)).not.toContain('RA-JPY');
	});

	it('a refused IBAN filter is named without its full value', async () => {
		const run = await list(sim(), { returnAll: true, filters: { bankAccountIBAN: 'GB29 NWBK 6016 1331 9268 19' } });
		expect(run.error?.message).toBe(
			'own beneficiaries: Bank Account IBAN "****8 19" is not in the form the API accepts',
		);
		expect(run.error?.description).toMatch(
			/^It must be a country code, two check digits, then up to 30 letters or digits, without spaces\. /,
		);
		expect(JSON.stringify(run.error)).not.toContain('6016 1331');
	});
});

describe('Continue On Fail covers every per-item parameter', () => {
	it("an invalid Timeout from item 0's expression fails item 0 only; the others run", async () => {
		const run = await quota(
			sim(),
			{ ...QUOTA, options: { timeout: '={{ $json.timeout }}' } },
			{ items: [{ timeout: 0 }, { timeout: 1000 }, { timeout: 5000 }], continueOnFail: true },
		);
		expect(run.status).toBe('success');
		expect(run.json).toHaveLength(3);
		expect(run.json[0]).toMatchObject({ field: 'timeout' });
		expect(String(run.json[0].error)).toMatch(/Timeout must be a whole number from 1000 to 300000$/);
		expect(String(run.json[0].description)).toMatch(/^It is 0\. Correct Timeout/);
		expect(run.json[1]).toMatchObject({ quotaAccumulationId: 'U-1001' });
		expect(run.json[2]).toMatchObject({ quotaAccumulationId: 'U-1001' });
		expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		// Item 0 sent nothing.
		expect(sim().requests).toHaveLength(2);
	});

	it("the listing's error item names the parameter, timeout", async () => {
		const run = await list(
			sim(),
			{ returnAll: false, limit: 2, customerId: 'CUST_SMALL', options: { timeout: '={{ $json.timeout }}' } },
			{ items: [{ timeout: 300_001 }, { timeout: 1000 }], continueOnFail: true },
		);
		expect(run.json[0]).toMatchObject({ field: 'timeout' });
		expect(run.json.slice(1)).toEqual(SMALL.slice(0, 2));
	});

	it('without Continue On Fail the same value ends the node, and nothing is emitted', async () => {
		const run = await quota(
			sim(),
			{ ...QUOTA, options: { timeout: '={{ $json.timeout }}' } },
			{ items: [{ timeout: 0 }, { timeout: 2000 }] },
		);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/Timeout must be a whole number from 1000 to 300000$/);
		expect(run.error?.description).toMatch(/^It is 0\. /);
		expect(sim().requests).toHaveLength(0);
	});
});

describe('a replayed answer is refused', () => {
	it('a signed listing answer served again within the freshness window is refused, naming the replay', async () => {
		const first = await list(sim(), { returnAll: false, limit: 5, customerId: 'CUST_SMALL' });
		expect(first.status).toBe('success');
		sim().addFault({ fault: 'replay', operation: 'list', times: 1 });
		const again = await list(sim(), { returnAll: false, limit: 5, customerId: 'CUST_SMALL' });
		expect(again.status).toBe('error');
		expect(again.json).toEqual([]);
		expect(again.error?.message).toBe(
			'CUST_SMALL beneficiaries: The same signed answer came back a second time (a replay)',
		);
		// The replay really was the earlier answer: the same bytes verified (no signature or freshness error).
		expect(sim().requests.at(-1)?.fault).toBe('replay');
	});

	it('an answer replayed to a workflow with a longer tolerance is refused: it was already accepted once', async () => {
		const first = await list(
			sim(),
			{ returnAll: true, customerId: 'CUST_SMALL' },
			{
				credentials: { responseTimeToleranceSeconds: 2 },
			},
		);
		expect(first.status).toBe('success');
		// Stale for the first credential (2 s), still fresh for the default one (300 s): the clock moves
		// 3.2 s on (the node's and the simulator's Date.now) instead of the test waiting for it.
		const realNow = Date.now.bind(Date);
		const moved = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 3_200);
		sim().addFault({ fault: 'replay', operation: 'list', times: 1 });
		const again = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' }).finally(() => moved.mockRestore());
		expect(sim().requests.at(-1)?.fault).toBe('replay');
		expect(again.status).toBe('error');
		expect(again.error?.message).toMatch(/came back a second time \(a replay\)$/);
	});
});

/** A block of docs/proof.md by its marker comment (`<!-- name: ... -->`), as it stands. */
function proofDocBlock(name: string): string {
	const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'proof.md'), 'utf8');
	const block = new RegExp(`<!-- ${name}[^\\n]*-->\\n\`\`\`bash\\n([\\s\\S]*?)\`\`\``).exec(doc);
	if (!block) throw new Error(`docs/proof.md has no ${name} block`);
	return block[1];
}

const GATEWAY_PUBLIC = readSandboxKey('gateway-public.pem');

/**
 * docs/proof.md's blocks as an auditor runs them, by bash in a fresh folder: the service public key
 * saved as it sits in the credential (`service-key.txt`) turned into a PEM, then the proof checked.
 */
function runReadmeCheck(
	proof: IDataObject,
	body: Buffer = Buffer.from(String(proof.bodyBase64), 'base64'),
	serviceKey = GATEWAY_PUBLIC,
): string {
	const dir = mkdtempSync(join(tmpdir(), 'pai-proof-'));
	try {
		writeFileSync(join(dir, 'service-key.txt'), serviceKey);
		return execFileSync('bash', ['-c', `${proofDocBlock('proof-key')}\n${proofDocBlock('proof-check')}`], {
			cwd: dir,
			env: {
				PATH: process.env.PATH,
				P: String(proof.path),
				C: String(proof.clientId),
				T: String(proof.responseTime),
				S: String(proof.signatureBase64),
				B: body.toString('base64'),
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		}).toString();
	} catch (error) {
		return String((error as { stdout?: Buffer }).stdout ?? error);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** The service public key in every form the credential accepts (docs/api.md, Keys). */
function serviceKeyForms(): Record<string, string> {
	const key = createPublicKey(GATEWAY_PUBLIC);
	const spki = key.export({ type: 'spki', format: 'pem' }).toString();
	const pkcs1 = key.export({ type: 'pkcs1', format: 'pem' }).toString();
	const bare = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
	const dir = mkdtempSync(join(tmpdir(), 'pai-cert-'));
	let certificate: string;
	try {
		writeFileSync(join(dir, 'key.pem'), readSandboxKey('gateway-private.pem'));
		certificate = execFileSync(
			'openssl',
			['req', '-x509', '-key', join(dir, 'key.pem'), '-subj', '/CN=gateway', '-days', '1'],
			{ stdio: ['ignore', 'pipe', 'pipe'] },
		).toString();
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return {
		'SPKI PEM': spki,
		'PKCS#1 PEM': pkcs1,
		'SPKI bare Base64 (as the developer centre hands it out)': bare(spki),
		'PKCS#1 bare Base64': bare(pkcs1),
		'SPKI bare Base64 wrapped at 64 with spaces': (bare(spki).match(/.{1,64}/g) ?? []).join(' \n '),
		'SPKI PEM, Windows line ends': spki.replace(/\n/g, '\r\n'),
		'PKCS#1 PEM, stray spaces and indentation': pkcs1
			.split('\n')
			.map((line) => `  ${line}\t`)
			.join('\n'),
		'SPKI PEM on one line with literal \\n escapes': spki.trim().replace(/\n/g, '\\n'),
		'an X.509 certificate PEM': certificate,
	};
}

function flipOneByte(proof: IDataObject): Buffer {
	const body = Buffer.from(String(proof.bodyBase64), 'base64');
	body[body.length >> 1] ^= 0x01;
	return body;
}

describe('Include Proof: an auditor verifies an answer again with OpenSSL alone', () => {
	it('a quota item carries its proof; the docs/proof.md command verifies it and fails on a one-byte change', async () => {
		const run = await quota(sim(), {
			quotaAccumulationMethod: 'USER_ID',
			quotaAccumulationId: 'U-1001',
			currency: 'USD',
			options: { includeProof: true },
		});
		expect(run.status).toBe('success');
		const proof = run.json[0].proof as IDataObject;
		expect(proof).toMatchObject({
			method: 'POST',
			path: '/amsin/api/v1/business/account/inquiryAvailableQuota',
			clientId: sim().clientId,
		});
		const answer = JSON.parse(Buffer.from(String(proof.bodyBase64), 'base64').toString('utf8'));
		expect(answer.availableQuota).toEqual(run.json[0].availableQuota);
		expect(runReadmeCheck(proof)).toContain('Verified OK');
		expect(runReadmeCheck(proof, flipOneByte(proof))).toContain('Verification failure');
	});

	it("a listing's first item of each page carries that page's proof, the others name their page", async () => {
		const run = await list(sim(), {
			returnAll: false,
			limit: 120,
			customerId: 'CUST_LARGE',
			options: { includeProof: true },
		});
		expect(run.json).toHaveLength(120);
		expect(run.json.map((b) => Object.fromEntries(Object.entries(b).filter(([key]) => key !== 'proof')))).toEqual(
			listedAs(LARGE, 'CUST_LARGE').slice(0, 120),
		);
		const full = run.json.filter((b) => (b.proof as IDataObject).bodyBase64 !== undefined);
		expect(full.map((b) => b.beneficiaryToken)).toEqual([0, 50, 100].map((i) => LARGE[i].beneficiaryToken));
		expect(run.json[1].proof).toEqual({ page: 1 });
		expect(run.json[119].proof).toEqual({ page: 3 });
		for (const [i, item] of full.entries()) {
			const proof = item.proof as IDataObject;
			expect(proof.page).toBe(i + 1);
			const page = JSON.parse(Buffer.from(String(proof.bodyBase64), 'base64').toString('utf8'));
			expect(page.currentPageNumber).toBe(i + 1);
			expect(runReadmeCheck(proof)).toContain('Verified OK');
		}
		expect(runReadmeCheck(full[2].proof as IDataObject, flipOneByte(full[2].proof as IDataObject))).toContain(
			'Verification failure',
		);
	});

	it('docs/proof.md turns every key form the credential accepts into what OpenSSL reads', async () => {
		const run = await quota(sim(), { ...QUOTA, options: { includeProof: true } });
		const proof = run.json[0].proof as IDataObject;
		for (const [form, text] of Object.entries(serviceKeyForms())) {
			// The credential accepts it as the same key ...
			expect([form, publicKeyFrom(text).export({ type: 'spki', format: 'der' })]).toEqual([
				form,
				createPublicKey(GATEWAY_PUBLIC).export({ type: 'spki', format: 'der' }),
			]);
			// ... and docs/proof.md's commands, as they stand, verify with it.
			expect([form, runReadmeCheck(proof, undefined, text)]).toEqual([form, 'Verified OK\n']);
		}
		expect(runReadmeCheck(proof, flipOneByte(proof), serviceKeyForms()['PKCS#1 bare Base64'])).toContain(
			'Verification failure',
		);
	});

	it('is off by default: no proof in the output', async () => {
		const run = await list(sim(), { returnAll: false, limit: 3, customerId: 'CUST_LARGE' });
		expect(run.json).toHaveLength(3);
		expect(run.json.every((b) => b.proof === undefined)).toBe(true);
	});
});
