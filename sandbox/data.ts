/**
 * The simulator's deterministic data set: every run, every machine, the same beneficiaries and
 * quotas. Customer IDs (header Connected-CustomerId or body customerId):
 * - (none)        the partner's own account: 12 beneficiaries
 * - CUST_LARGE    320 beneficiaries (7 pages of 50), every asset and relation type
 * - CUST_SMALL    5 beneficiaries, non-ASCII names; its account does not support KRW
 * - CUST_NO_REF   3 beneficiaries bound without a Reference Beneficiary ID (each known by its token:
 *                 new bank details make it another entry, the trigger's possible bank change)
 * - CUST_EMPTY    no beneficiaries
 * - CUST_BENCH    10,000 beneficiaries (200 pages), for the benchmark
 * - CUST_FIVE     250 beneficiaries (5 pages of 50), for the benchmark's many-listings row; CUST_FIVE_0
 *                 to CUST_FIVE_49 alike, for its trigger watching many customers
 * - CUST_TWICE    60 beneficiaries (2 pages of 50) that list one bank account more than once, as
 *                 the gateway may: bound in two currencies (the same token twice on one page, with
 *                 and without reference IDs) and bound again under another nickname across the
 *                 page boundary (the same reference ID and token on pages 1 and 2)
 * - 10005678, 20005678  2 beneficiaries each: numeric customer IDs that end in the same four digits,
 *                 as a workflow routing per customer must tell apart (Mask Bank Details keeps them)
 * - CUST_PROCESS_FAIL, CUST_SYSTEM_ERROR, CUST_UNKNOWN, CUST_RATE_LIMITED, CUST_PARAM_ILLEGAL:
 *   answer with that result code; any other ID: USER_NOT_EXIST.
 */
export interface Beneficiary {
	beneficiaryToken: string;
	beneficiaryNick: string;
	/** Optional in the API (a beneficiary bound without one is known by its token): CUST_TWICE has such entries. */
	referenceBeneficiaryId: string;
	beneficiaryType: string;
	status: string;
	assetType: 'BANK_ACCOUNT' | 'WALLET_ACCOUNT';
	relationType: 'SAME_NAME' | 'THIRD_PARTY';
	accountName: string;
	currency: string;
	bankAccountNo?: string;
	bankAccountIBAN?: string;
	bankName?: string;
	bankCountry: string;
	/** A field the API does not name: the node must pass it through untouched. */
	extendInfo: { createdAt: string; tags: string[] };
}

export interface Customer {
	beneficiaries: Beneficiary[];
	unsupportedCurrencies: string[];
}

export const CURRENCIES = ['USD', 'EUR', 'GBP', 'NZD', 'CAD', 'AUD', 'JPY', 'SGD', 'HKD', 'CNH', 'CNY', 'KRW'];

const NAMES = [
	'Acme Trading Ltd',
	'深圳市前海贸易有限公司',
	'Zoë Müller GmbH',
	'Société Générale Import SARL',
	'株式会社サクラ物産',
	'Ñandú Exportaciones SA',
	'Ελληνική Ναυτιλιακή ΑΕ',
	'Northwind Supplies Pty',
	'Contoso Logistics LLC',
	'Fabrikam Textiles Co',
	'李小龙',
	'Global Parts Inc',
];

/** mulberry32: a small seeded generator, so the data set never changes. */
function random(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function makeBeneficiaries(prefix: string, count: number, seed: number, names = NAMES): Beneficiary[] {
	const rnd = random(seed);
	const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)];
	const out: Beneficiary[] = [];
	for (let i = 1; i <= count; i++) {
		const assetType = i % 3 === 0 ? 'WALLET_ACCOUNT' : 'BANK_ACCOUNT';
		const relationType = i % 4 === 0 ? 'SAME_NAME' : 'THIRD_PARTY';
		const currency = CURRENCIES[(i * 7 + seed) % CURRENCIES.length];
		const id = `${prefix}-${String(i).padStart(5, '0')}`;
		const accountNo = `${prefix.replace(/[^A-Z0-9]/g, '')}${String(100000 + i * 37)}`;
		const withIban = assetType === 'BANK_ACCOUNT' && i % 2 === 1;
		const name = pick(names);
		out.push({
			beneficiaryToken: Buffer.from(`token:${id}`).toString('base64'),
			beneficiaryNick: `${name.split(' ')[0]} ${currency} #${i}`,
			referenceBeneficiaryId: `REF-${id}`,
			beneficiaryType: assetType === 'BANK_ACCOUNT' ? 'BANK' : 'WALLET',
			status: i % 17 === 0 ? 'PENDING' : 'ACTIVE',
			assetType,
			relationType,
			accountName: name,
			currency,
			...(assetType === 'BANK_ACCOUNT'
				? { bankAccountNo: accountNo, bankName: pick(['HSBC', 'DBS Bank', 'Deutsche Bank', 'MUFG', 'Bank of China']) }
				: { bankAccountNo: `W${accountNo}` }),
			...(withIban
				? {
						bankAccountIBAN: `GB${String(10 + (i % 89)).padStart(2, '0')}NWBK${String(60161331926819 + i).slice(0, 14)}`,
					}
				: {}),
			bankCountry: pick(['SG', 'DE', 'GB', 'JP', 'CN', 'US', 'FR']),
			extendInfo: {
				createdAt: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString(),
				tags: i % 5 === 0 ? ['supplier', 'priority'] : ['supplier'],
			},
		});
	}
	return out;
}

export function createCustomers(): Map<string, Customer> {
	const customers = new Map<string, Customer>();
	customers.set('', { beneficiaries: makeBeneficiaries('OWN', 12, 11), unsupportedCurrencies: [] });
	customers.set('CUST_LARGE', { beneficiaries: makeBeneficiaries('LRG', 320, 7), unsupportedCurrencies: [] });
	customers.set('CUST_SMALL', {
		beneficiaries: makeBeneficiaries('SML', 5, 3, [
			'深圳市前海贸易有限公司',
			'Zoë Müller GmbH',
			'Société Générale Import SARL',
			'株式会社サクラ物産',
			'Acme Trading Ltd',
		]),
		unsupportedCurrencies: ['KRW'],
	});
	customers.set('CUST_NO_REF', {
		beneficiaries: withoutReferences(makeBeneficiaries('NOREF', 3, 23)),
		unsupportedCurrencies: [],
	});
	customers.set('CUST_EMPTY', { beneficiaries: [], unsupportedCurrencies: [] });
	customers.set('CUST_TWICE', { beneficiaries: listedTwice(), unsupportedCurrencies: [] });
	customers.set('10005678', { beneficiaries: makeBeneficiaries('NUMA', 2, 17), unsupportedCurrencies: [] });
	customers.set('20005678', { beneficiaries: makeBeneficiaries('NUMB', 2, 19), unsupportedCurrencies: [] });
	let bench: Beneficiary[] | undefined;
	let five: Beneficiary[] | undefined;
	customers.set('CUST_FIVE', {
		get beneficiaries() {
			return (five ??= makeBeneficiaries('FIVE', 250, 11));
		},
		unsupportedCurrencies: [],
	});
	customers.set('CUST_BENCH', {
		get beneficiaries() {
			return (bench ??= makeBeneficiaries('BEN', 10_000, 5));
		},
		unsupportedCurrencies: [],
	});
	// CUST_FIVE_0 to CUST_FIVE_49: 50 customers of 250 beneficiaries each (made when first listed),
	// for the benchmark's trigger watching many customers.
	for (let n = 0; n < 50; n++) {
		let list: Beneficiary[] | undefined;
		customers.set(`CUST_FIVE_${n}`, {
			get beneficiaries() {
				return (list ??= makeBeneficiaries(`F${n}`, 250, 11));
			},
			unsupportedCurrencies: [],
		});
	}
	return customers;
}

/** The list with every reference ID taken away, as payees bound without one are listed. */
function withoutReferences(list: Beneficiary[]): Beneficiary[] {
	for (const beneficiary of list) delete (beneficiary as Partial<Beneficiary>).referenceBeneficiaryId;
	return list;
}

/**
 * CUST_TWICE's list: one bank account bound in USD and EUR (entries 3 and 4, one reference ID),
 * another without reference IDs in GBP and JPY (entries 10 and 11), and one bound again under
 * another nickname across the page boundary (entries 50 and 51).
 */
function listedTwice(): Beneficiary[] {
	const list = makeBeneficiaries('TWC', 57, 13);
	const again = (i: number, fields: Partial<Beneficiary>) => list.splice(i + 1, 0, { ...list[i], ...fields });
	again(2, { currency: 'EUR', beneficiaryNick: `${list[2].beneficiaryNick} (EUR)` });
	delete (list[9] as Partial<Beneficiary>).referenceBeneficiaryId;
	again(9, { currency: 'JPY', beneficiaryNick: `${list[9].beneficiaryNick} (JPY)` });
	again(49, { beneficiaryNick: `${list[49].beneficiaryNick} (again)` });
	return list;
}

/** Customer IDs that answer with a fixed result code (section 7). */
export const CODE_CUSTOMERS: Record<string, { status: 'F' | 'U'; code: string; message: string }> = {
	CUST_PROCESS_FAIL: { status: 'F', code: 'PROCESS_FAIL', message: 'General business failure' },
	CUST_SYSTEM_ERROR: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' },
	CUST_UNKNOWN: { status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'An unknown exception occurred' },
	CUST_RATE_LIMITED: {
		status: 'U',
		code: 'REQUEST_TRAFFIC_EXCEED_LIMIT',
		message: 'Request traffic exceeds the limit',
	},
	CUST_PARAM_ILLEGAL: { status: 'F', code: 'PARAM_ILLEGAL', message: 'Illegal parameter: customerId' },
};

/** Quotas: value in minor units; some as strings, some as numbers, as SDKs differ. */
export interface QuotaRecord {
	value: string | number;
	currency: string;
}

export const QUOTAS: Record<
	string,
	Record<string, QuotaRecord | { code: string; status: 'F' | 'U'; message: string }>
> = {
	USER_ID: {
		'U-1001': { value: '1250000', currency: 'USD' },
		'U-1002': { value: '0', currency: 'USD' },
		'U-CONTRACT': { code: 'CONTRACT_CHECK_FAIL', status: 'F', message: 'Contract check failed: contract expired' },
		'U-UNKNOWN': { code: 'UNKNOWN_EXCEPTION', status: 'U', message: 'An unknown exception occurred' },
		// Two managed customers' own service users (Connected-AccountId ACC_0002, ACC_0003): the examples' customers.
		'ACC_0002/U-2001': { value: '500000', currency: 'USD' },
		'ACC_0003/U-3001': { value: '8000000', currency: 'USD' },
	},
	RECEIVING_ACCOUNT: {
		'RA-2001': { value: '98765432', currency: 'USD' },
		'RA-JPY': { value: '5000000', currency: 'JPY' },
	},
	VIRTUAL_ACCOUNT: {
		'VA-3001': { value: 4200050, currency: 'EUR' },
		'VA-KRW': { value: 75000000, currency: 'KRW' },
	},
	BENEFICIARY: {
		'B-4001:GOODS': { value: '3000000', currency: 'USD' },
		'B-4001:SERVICE': { value: '150075', currency: 'USD' },
	},
};

/**
 * The quota of a method's subject (for BENEFICIARY the key is "<id>:<tradeType>"; a managed
 * customer's own subject "<connected account>/<key>"), or undefined.
 */
export function quotaRecord(method: string, key: string): (typeof QUOTAS)[string][string] | undefined {
	const fixed = QUOTAS[method]?.[key];
	if (fixed) return fixed;
	// U-B0 to U-B9999: a quota per ID (its number * 100 + 1 cents), for checks over many accounts.
	const bench = method === 'USER_ID' ? /^U-B(\d{1,4})$/.exec(key) : null;
	return bench ? { value: String(Number(bench[1]) * 100 + 1), currency: 'USD' } : undefined;
}
