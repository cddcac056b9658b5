/**
 * The simulated accounts as they stand now: the customers' beneficiaries (data.ts's data set, then
 * what a test, a user or the bank does to them meanwhile) and the quotas a test moved.
 */
import { createCustomers, quotaRecord, type Beneficiary, type Customer } from './data';
import type { Bind } from './faultRules';

export class Accounts {
	private customers = createCustomers();
	private readonly quotaOverrides = new Map<string, { value: string | number; currency: string }>();
	private bankChanges = 0;
	/** Beneficiaries a fault bound while a list was read, over the simulator's life (their serial). */
	private added = 0;

	customer(customerId: string): Customer | undefined {
		return this.customers.get(customerId);
	}

	/** Simulator.beneficiaries: the live list. */
	beneficiaries(customerId: string): Beneficiary[] {
		const customer = this.customers.get(customerId);
		if (!customer) throw new Error(`no customer ${customerId}`);
		return customer.beneficiaries;
	}

	/** The quota record for a method and key, as data.ts has it or as a test moved it. */
	quota(method: string, key: string): ReturnType<typeof quotaRecord> {
		return this.quotaOverrides.get(`${method}:${key}`) ?? quotaRecord(method, key);
	}

	setQuota(method: string, id: string, value: string | number, currency = 'USD'): void {
		this.quotaOverrides.set(`${method}:${id}`, { value, currency });
	}

	changeBankDetails(customerId: string, referenceBeneficiaryId: string): Beneficiary {
		const beneficiary = this.beneficiaries(customerId).find((b) => b.referenceBeneficiaryId === referenceBeneficiaryId);
		if (!beneficiary) throw new Error(`no beneficiary ${referenceBeneficiaryId} for ${customerId || 'the partner'}`);
		const n = ++this.bankChanges;
		beneficiary.bankAccountNo = `${String(70000000 + n * 9173)}${String(n).padStart(4, '0')}`;
		if (beneficiary.bankAccountIBAN)
			beneficiary.bankAccountIBAN = `DE89370400440${String(532013000 + n).padStart(9, '0')}`;
		beneficiary.beneficiaryToken = Buffer.from(`token:${referenceBeneficiaryId}:${beneficiary.bankAccountNo}`).toString(
			'base64',
		);
		return beneficiary;
	}

	/**
	 * Unbinds one beneficiary of the customer, found by its reference ID or its token (the first
	 * that matches); returns it. What a user or the bank does, for a Removed event.
	 */
	removeBeneficiary(
		customerId: string,
		which: { referenceBeneficiaryId?: string; beneficiaryToken?: string },
	): Beneficiary {
		const { referenceBeneficiaryId, beneficiaryToken } = which;
		if (referenceBeneficiaryId === undefined && beneficiaryToken === undefined)
			throw new Error('say which beneficiary: referenceBeneficiaryId or beneficiaryToken');
		const list = this.beneficiaries(customerId);
		const index = list.findIndex((b) =>
			referenceBeneficiaryId !== undefined
				? b.referenceBeneficiaryId === referenceBeneficiaryId
				: b.beneficiaryToken === beneficiaryToken,
		);
		if (index < 0)
			throw new Error(
				`no beneficiary ${referenceBeneficiaryId ?? `with token ${beneficiaryToken}`} for ${customerId || 'the partner'}`,
			);
		const [removed] = list.splice(index, 1);
		return removed;
	}

	bindAgain(customerId: string, index: number, fields: Partial<Beneficiary>): Beneficiary {
		const list = this.beneficiaries(customerId);
		const again = { ...list[index], ...fields };
		list.splice(index + 1, 0, again);
		return again;
	}

	setReference(customerId: string, index: number, referenceBeneficiaryId: string | undefined): Beneficiary {
		const beneficiary = this.beneficiaries(customerId)[index];
		if (referenceBeneficiaryId === undefined) delete (beneficiary as Partial<Beneficiary>).referenceBeneficiaryId;
		else beneficiary.referenceBeneficiaryId = referenceBeneficiaryId;
		return beneficiary;
	}

	reuseReference(customerId: string, index: number): Beneficiary {
		const list = this.beneficiaries(customerId);
		const n = ++this.bankChanges;
		const stranger: Beneficiary = {
			...list[index],
			accountName: `Reused Payee ${n} Ltd`,
			beneficiaryNick: `Reused ${n}`,
			bankAccountNo: `${String(80000000 + n * 7919)}${String(n).padStart(4, '0')}`,
			bankAccountIBAN: undefined,
		};
		delete stranger.bankAccountIBAN;
		stranger.beneficiaryToken = Buffer.from(`token:reused:${stranger.bankAccountNo}`).toString('base64');
		list[index] = stranger;
		return stranger;
	}

	/** A new beneficiary like `model`, named by `label` and a serial: what a fault binds while the list is read. */
	readonly bind: Bind = (model, label, nick) => {
		this.added++;
		return {
			...model,
			beneficiaryToken: Buffer.from(`token:${label}-${this.added}`).toString('base64'),
			referenceBeneficiaryId: `REF-${label}-${this.added}`,
			beneficiaryNick: `${nick} ${this.added}`,
		};
	};

	/** The data set as it was at the start (the serials go on). */
	reset(): void {
		this.customers = createCustomers();
		this.quotaOverrides.clear();
	}
}
