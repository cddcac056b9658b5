/**
 * Mask Bank Details, through n8n's engine against the simulator: an item safe to post keeps no
 * whole bank account number, IBAN or beneficiary token anywhere (its fields, `changes`, a field the
 * gateway fills with one), and nothing else of it changes. On by default in the action node (its
 * default is off with Include Proof, whose proof is the bytes signed) and in the trigger.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { list, listAsSet, listedAs, useSimulator } from '../support/helpers';

const { sim } = useSimulator();

const BANK = ['beneficiaryToken', 'bankAccountNo', 'bankAccountIBAN'] as const;
const tail = (value: string) => `****${value.slice(-4)}`;

/** Every whole bank value of these beneficiaries. */
const wholeValues = (beneficiaries: Beneficiary[]) =>
	beneficiaries.flatMap((b) => BANK.map((field) => b[field]).filter((v): v is string => typeof v === 'string'));

/** The beneficiary as Mask Bank Details shows it, listed for `customerId`. */
const masked = (b: Beneficiary, customerId: string): IDataObject => {
	const out = { ...listedAs([b], customerId)[0] } as unknown as IDataObject;
	for (const field of BANK) if (typeof b[field] === 'string') out[field] = tail(b[field] as string);
	return out;
};

/** CUST_SMALL's first beneficiary, its account number and IBAN repeated in a field the gateway fills. */
function echoInExtendInfo(): Beneficiary {
	const first = sim().beneficiaries('CUST_SMALL')[0];
	(first.extendInfo as unknown as IDataObject).payTo = `${first.bankAccountNo} / ${first.bankAccountIBAN}`;
	return first;
}

describe('the action node', () => {
	it('on by default (Simplify off shows every field): each bank value by its last four', async () => {
		const run = await listAsSet(sim(), { returnAll: true, customerId: 'CUST_SMALL', simplify: false });
		expect(run.status).toBe('success');
		expect(run.json).toEqual(
			sim()
				.beneficiaries('CUST_SMALL')
				.map((b) => masked(b, 'CUST_SMALL')),
		);
	});

	it('off: items as the API returned them', async () => {
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL', options: { maskBankDetails: false } });
		expect(run.json).toEqual(listedAs(sim().beneficiaries('CUST_SMALL'), 'CUST_SMALL'));
	});

	it('on: no whole bank value anywhere in any item, every other field as returned', async () => {
		const first = echoInExtendInfo();
		const run = await list(sim(), {
			returnAll: true,
			customerId: 'CUST_SMALL',
			options: { maskBankDetails: true },
		});
		expect(run.status).toBe('success');
		const beneficiaries = sim().beneficiaries('CUST_SMALL');
		const expected: IDataObject[] = beneficiaries.map((b) => masked(b, 'CUST_SMALL'));
		expected[0].extendInfo = {
			...first.extendInfo,
			payTo: `${tail(first.bankAccountNo as string)} / ${tail(first.bankAccountIBAN as string)}`,
		};
		expect(run.json).toEqual(expected);
		const produced = JSON.stringify(run.run.data.resultData);
		for (const value of wholeValues(beneficiaries)) expect(produced).not.toContain(value);
	});

	it('on for a list of 7 pages: every item masked', async () => {
		const run = await list(sim(), {
			returnAll: true,
			customerId: 'CUST_LARGE',
			options: { maskBankDetails: true },
		});
		expect(run.json).toEqual(
			sim()
				.beneficiaries('CUST_LARGE')
				.map((b) => masked(b, 'CUST_LARGE')),
		);
		const produced = JSON.stringify(run.json);
		for (const value of wholeValues(sim().beneficiaries('CUST_LARGE'))) expect(produced).not.toContain(value);
	});

	it('with Include Proof its default is off: items whole, each page with its proof', async () => {
		const run = await listAsSet(sim(), {
			returnAll: true,
			customerId: 'CUST_SMALL',
			simplify: false,
			options: { includeProof: true },
		});
		expect(run.status).toBe('success');
		const whole = listedAs(sim().beneficiaries('CUST_SMALL'), 'CUST_SMALL');
		const withoutProof = run.json.map((item) =>
			Object.fromEntries(Object.entries(item).filter(([key]) => key !== 'proof')),
		);
		expect(withoutProof).toEqual(whole);
		expect(JSON.stringify(run.json)).toContain(sim().beneficiaries('CUST_SMALL')[0].bankAccountNo as string);
		expect(run.json[0].proof).toMatchObject({ page: 1 });
	});

	it.each([true, '={{ true }}'])(
		'with Include Proof, turned on (%p) it is refused before anything is sent: a proof is the bytes signed, bank details whole',
		async (maskBankDetails) => {
			const run = await list(sim(), {
				returnAll: true,
				customerId: 'CUST_SMALL',
				options: { includeProof: true, maskBankDetails },
			});
			expect(run.status).toBe('error');
			expect(run.error?.message).toBe(
				'CUST_SMALL beneficiaries: Mask Bank Details and Include Proof cannot both be on',
			);
			expect(run.error?.description).toMatch(
				/^A proof is the exact bytes signed, .* Turn one of them off\. Nothing was sent\.$/,
			);
			expect(sim().requests).toHaveLength(0);
		},
	);
});

describe('the trigger', () => {
	const OWNER = { whoseAccount: 'CUST_SMALL' };
	/** The trigger on CUST_SMALL's list, its items whole (Simplify off), Mask Bank Details as `parameters.options` says. */
	const poller = (parameters: INodeParameters, mode?: 'manual') =>
		activateTrigger({
			parameters: {
				customerIds: 'CUST_SMALL',
				...parameters,
				options: { simplify: false, ...(parameters.options as IDataObject | undefined) },
			},
			credentials: sandboxCredentials(sim().url),
			staticData: {},
			mode,
		});
	const emitted = async (p: ReturnType<typeof poller>) => {
		const result = await p.poll();
		if (!result.ok) throw result.error;
		return result.items?.map((item) => item.json) ?? null;
	};

	it('by default: a bank-detail change says "ending 1234 -> ending 9876" and keeps nothing whole', async () => {
		// The gateway's own field still names the old account after the change: masked by its shape.
		echoInExtendInfo();
		const watching = poller({ events: ['beneficiaryChanged'] });
		expect(await emitted(watching)).toBeNull();
		const before = { ...sim().beneficiaries('CUST_SMALL')[0] };
		const after = sim().changeBankDetails('CUST_SMALL', before.referenceBeneficiaryId as string);
		const items = await emitted(watching);
		const changes: IDataObject = {};
		for (const field of BANK) {
			if (before[field])
				changes[field] = { before: tail(before[field] as string), after: tail(after[field] as string) };
		}
		expect(items).toEqual([
			{
				...masked(after, 'CUST_SMALL'),
				extendInfo: {
					...after.extendInfo,
					payTo: `${tail(before.bankAccountNo as string)} / ${tail(before.bankAccountIBAN as string)}`,
				},
				event: 'beneficiaryChanged',
				changes,
				...OWNER,
			},
		]);
		const produced = JSON.stringify(items);
		for (const value of wholeValues([before as Beneficiary, after])) expect(produced).not.toContain(value);
		expect(await emitted(watching)).toBeNull();
	});

	it('by default: an addition and a removal are masked; Fetch Test Event too', async () => {
		const adding = poller({ events: ['beneficiaryAdded'] });
		const removing = poller({ events: ['beneficiaryRemoved'] });
		expect(await emitted(adding)).toBeNull();
		expect(await emitted(removing)).toBeNull();
		const list = sim().beneficiaries('CUST_SMALL');
		const added: Beneficiary = {
			...list[1],
			referenceBeneficiaryId: 'REF-MASK-1',
			beneficiaryToken: Buffer.from('token:REF-MASK-1').toString('base64'),
			bankAccountNo: '6222021234560001',
		};
		list.push(added);
		const [gone] = list.splice(2, 1);
		expect(await emitted(adding)).toEqual([{ ...masked(added, 'CUST_SMALL'), event: 'beneficiaryAdded', ...OWNER }]);
		const removed = await emitted(removing);
		expect(removed).toEqual([expect.objectContaining({ beneficiaryToken: tail(gone.beneficiaryToken) })]);
		const sample = await emitted(poller({ events: ['beneficiaryAdded'] }, 'manual'));
		expect(sample?.length).toBeGreaterThan(0);
		const produced = JSON.stringify([removed, sample]);
		for (const value of wholeValues([...list, gone])) expect(produced).not.toContain(value);
	});

	it('turned off: items whole; turned on: masked', async () => {
		const turnedOn = poller({ events: ['beneficiaryAdded'], options: { maskBankDetails: true } });
		const turnedOff = poller({ events: ['beneficiaryAdded'], options: { maskBankDetails: false } });
		for (const p of [turnedOn, turnedOff]) expect(await emitted(p)).toBeNull();
		const added: Beneficiary = {
			...sim().beneficiaries('CUST_SMALL')[1],
			referenceBeneficiaryId: 'REF-MASK-2',
			beneficiaryToken: Buffer.from('token:REF-MASK-2').toString('base64'),
		};
		sim().beneficiaries('CUST_SMALL').push(added);
		expect(await emitted(turnedOn)).toEqual([{ ...masked(added, 'CUST_SMALL'), event: 'beneficiaryAdded', ...OWNER }]);
		expect(await emitted(turnedOff)).toEqual([{ ...added, event: 'beneficiaryAdded', ...OWNER }]);
	});
});
