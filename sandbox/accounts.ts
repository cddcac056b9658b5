/**
 * The simulated accounts as they stand now: the customers' beneficiaries (data.ts's data set, then
 * what a test, a user or the bank does to them meanwhile) and the quotas a test moved.
 */
import { createCustomers, quotaRecord, type Beneficiary, type Customer, type QuotaRecord } from './data';
import type { Bind } from './faultRules';

/** Which beneficiary of a customer: by its reference ID, or (one bound without) by its token. */
export interface Which {
	referenceBeneficiaryId?: string;
	beneficiaryToken?: string;
}

export const QUOTA_METHODS = ['USER_ID', 'RECEIVING_ACCOUNT', 'VIRTUAL_ACCOUNT', 'BENEFICIARY'];

/** The fields change-beneficiary may set (its bank details are changeBankDetails'; its reference ID would be another payee). */
const CHANGEABLE: ReadonlyArray<keyof Beneficiary> = [
	'beneficiaryNick',
	'beneficiaryType',
	'status',
	'assetType',
	'relationType',
	'accountName',
	'currency',
	'bankName',
	'bankCountry',
];

/** A whole number of the currency's smallest unit, as the gateway sends it (a string of digits or a number). */
const isMinorUnits = (value: unknown): value is string | number =>
	typeof value === 'number'
		? Number.isSafeInteger(value) && value >= 0
		: typeof value === 'string' && /^\d+$/.test(value);

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

	/**
	 * The quota record for a method and key, as data.ts has it or as a test moved it. A key
	 * "<connected account>/<key>" is a managed customer's own quota (Connected-AccountId): as moved
	 * for that account or as data.ts gives that account, else the shared one.
	 */
	quota(method: string, key: string): ReturnType<typeof quotaRecord> {
		const slash = key.indexOf('/');
		const shared = () => (slash >= 0 ? this.quota(method, key.slice(slash + 1)) : undefined);
		return this.quotaOverrides.get(`${method}:${key}`) ?? quotaRecord(method, key) ?? shared();
	}

	/**
	 * Moves a quota (for BENEFICIARY the id is "<id>:<tradeType>"). What is omitted keeps its value:
	 * without `currency` the subject's own (USD for a subject that holds none: new, or answering a
	 * code); without `value` its value. Throws, naming the field, for a method, value or currency
	 * the gateway could not answer with. Returns the quota as it now stands.
	 */
	setQuota(method: string, id: string, value?: string | number, currency?: string): QuotaRecord {
		if (!QUOTA_METHODS.includes(method))
			throw new Error(`method "${method}" is not a quota accumulation method: give one of ${QUOTA_METHODS.join(', ')}`);
		if (!id) throw new Error('id is required: the quota accumulation ID (for BENEFICIARY with its tradeType)');
		if (value === undefined && currency === undefined)
			throw new Error("value or currency is required: nothing to set (value in the currency's smallest unit)");
		if (value !== undefined && !isMinorUnits(value))
			throw new Error(
				`value ${JSON.stringify(value)} is not a whole number of the currency's smallest unit (as "10000000": USD 100,000.00)`,
			);
		if (currency !== undefined && !(typeof currency === 'string' && /^[A-Z]{3}$/.test(currency)))
			throw new Error(`currency ${JSON.stringify(currency)} is not a 3-letter upper-case currency code (as "EUR")`);
		const held = this.quota(method, id);
		const holds = held && !('code' in held) ? held : undefined;
		const next = value ?? holds?.value;
		if (next === undefined)
			throw new Error(
				`value is required: ${method} ${id} holds no quota to keep (give it in the currency's smallest unit)`,
			);
		const record = { value: next, currency: currency ?? holds?.currency ?? 'USD' };
		this.quotaOverrides.set(`${method}:${id}`, record);
		return record;
	}

	/** The customer's beneficiary `which` names (the first that matches); throws when none does. */
	private find(customerId: string, which: Which): { list: Beneficiary[]; index: number } {
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
		return { list, index };
	}

	/**
	 * New bank details for the beneficiary `which` names (a reference ID as a string, or its token
	 * for one bound without): a new account number (and IBAN, where it had one), so a new token.
	 */
	changeBankDetails(customerId: string, which: string | Which): Beneficiary {
		const { list, index } = this.find(
			customerId,
			typeof which === 'string' ? { referenceBeneficiaryId: which } : which,
		);
		const beneficiary = list[index];
		const n = ++this.bankChanges;
		beneficiary.bankAccountNo = `${String(70000000 + n * 9173)}${String(n).padStart(4, '0')}`;
		if (beneficiary.bankAccountIBAN)
			beneficiary.bankAccountIBAN = `DE89370400440${String(532013000 + n).padStart(9, '0')}`;
		const label = beneficiary.referenceBeneficiaryId ?? `untagged-${n}`;
		beneficiary.beneficiaryToken = Buffer.from(`token:${label}:${beneficiary.bankAccountNo}`).toString('base64');
		return beneficiary;
	}

	/**
	 * Sets fields of the beneficiary `which` names (a nickname, a status...), as a user edits a
	 * payee: each a text, and only those of CHANGEABLE. Returns it.
	 */
	changeBeneficiary(customerId: string, which: Which, fields: Record<string, unknown>): Beneficiary {
		const names = Object.keys(fields);
		if (names.length === 0) throw new Error(`set: give the fields to change, any of ${CHANGEABLE.join(', ')}`);
		for (const name of names) {
			if (!(CHANGEABLE as readonly string[]).includes(name))
				throw new Error(
					`set.${name} cannot be changed here: give any of ${CHANGEABLE.join(', ')} (new bank details: change-bank-details)`,
				);
			if (typeof fields[name] !== 'string') throw new Error(`set.${name} must be a text`);
		}
		const { list, index } = this.find(customerId, which);
		Object.assign(list[index], fields);
		return list[index];
	}

	/**
	 * Unbinds one beneficiary of the customer, found by its reference ID or its token (the first
	 * that matches); returns it. What a user or the bank does, for a Removed event.
	 */
	removeBeneficiary(customerId: string, which: Which): Beneficiary {
		const { list, index } = this.find(customerId, which);
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
