// The workflows the tests import, built here rather than kept as exported JSON: the smoke runs'
// (a start node and a chain, run by `n8n execute`), test:queue's webhooks, the screenshot's.
import { PACKAGE } from './harness.mjs';
import { SMOKE_CREDENTIAL } from './n8n.mjs';

const credentials = { partnerAccountInquiryApi: SMOKE_CREDENTIAL };
const hex = (text) => [...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7).toString(16).padStart(12, '0').slice(-12);
/** A workflow: `nodes` [name, type, typeVersion, parameters, extra] connected in a chain, `more` connections added. */
export function workflow(id, name, nodes, more = {}) {
	const built = nodes.map(([node, type, typeVersion, parameters = {}, extra = {}], i) => (
		{ id: `5e0c9d1a-0000-4000-8000-${hex(id + node)}`, name: node, type, typeVersion, position: [i * 240, 0], parameters, ...extra }));
	const connections = Object.fromEntries(built.slice(0, -1).map((n, i) => [n.name, { main: [[{ node: built[i + 1].name, type: 'main', index: 0 }]] }]));
	return { id, name, active: false, settings: { executionOrder: 'v1' }, nodes: built, connections: Object.fromEntries(Object.entries({ ...connections, ...more }).filter(([, to]) => to)), pinData: {} };
}
const start = (name = 'Start') => [name, 'n8n-nodes-base.manualTrigger', 1];
const pai = (name, parameters, extra = {}) => [name, `${PACKAGE}.partnerAccountInquiry`, 1, parameters, { credentials, ...extra }];
/** Get Many Beneficiaries of `customerId` (`own`: your own account), Return All, as the editor makes it (Simplify and Mask Bank Details on). */
const listing = (customerId, filters = {}, more = {}) => pai('Get Many Beneficiaries', { operation: 'listBeneficiaries', customerId, returnAll: true, ...more, filters, options: {} });
/** The same, each beneficiary whole as the API returned it (Simplify off, Mask Bank Details off): the runs that compare it with the data set. */
const list = (customerId, filters = {}, more = {}) => {
	const node = listing(customerId, filters, { simplify: false, ...more });
	node[3].options = { maskBankDetails: false };
	return node;
};
const quota = (extra, parameters = { connectedAccountId: 'own', quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: extra ? 'U-CONTRACT' : 'U-1001', currency: 'USD' }) =>
	pai('Get Available Quota', { operation: 'getAvailableQuota', ...parameters, options: {} }, extra);
const fromJson = (name, json) => [name, 'n8n-nodes-base.set', 3.4, { mode: 'raw', jsonOutput: JSON.stringify(json, null, 2), options: {} }];
const splitOut = (field) => ['Split Out', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: field, options: {} }];
const byExpression = { connectedAccountId: 'own', quotaAccumulationMethod: '={{ $json.method }}', quotaAccumulationId: '={{ $json.id }}', currency: '={{ $json.currency }}' };
/** The three accounts one quota execution asks about, each its own (smoke.mjs's quota-accounts). */
export const ACCOUNTS = [['own', 'U-1001'], ['ACC_0002', 'U-2001'], ['ACC_0003', 'U-3001']];
// A production webhook is registered only with a webhookId.
const webhook = (path, responseData, webhookId) => ['Webhook', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path, responseMode: 'lastNode', responseData, options: {} }, { webhookId }];
const toAgent = (type) => ({ [type]: [[{ node: 'AI Agent', type, index: 0 }]] });

/** Per-customer credentials, each holding its customer's Access Token (smoke.mjs's access-token): customer -> credential. */
export const TOKEN_CREDENTIALS = {
	ACC_0002: { id: 'PaiSmokeTokAcc02', name: 'Partner Account Inquiry account (ACC_0002)', accessToken: 'tok-ACC_0002-local' },
	CUST_SMALL: { id: 'PaiSmokeTokSmall', name: 'Partner Account Inquiry account (CUST_SMALL)', accessToken: 'tok-CUST_SMALL-local' },
};
const withToken = (customer, more = {}) => ({ credentials: { partnerAccountInquiryApi: { id: TOKEN_CREDENTIALS[customer].id, name: TOKEN_CREDENTIALS[customer].name } }, ...more });
/** The access-token run's nodes, each on a branch of its own from Start: [name, whose, credential's customer (none: the plain one)]. */
const TOKEN_NODES = [
	['Own quota', () => pai('Own quota', { operation: 'getAvailableQuota', connectedAccountId: 'own', quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD', options: {} })],
	['ACC_0002 quota', () => pai('ACC_0002 quota', { operation: 'getAvailableQuota', connectedAccountId: 'ACC_0002', quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-2001', currency: 'USD', options: {} }, withToken('ACC_0002'))],
	['Own beneficiaries', () => pai('Own beneficiaries', { operation: 'listBeneficiaries', customerId: 'own', returnAll: true, filters: {}, options: {} })],
	['CUST_SMALL beneficiaries', () => pai('CUST_SMALL beneficiaries', { operation: 'listBeneficiaries', customerId: 'CUST_SMALL', returnAll: true, filters: {}, options: {} }, withToken('CUST_SMALL'))],
	// `own` through a credential holding a customer's Access Token: refused, nothing sent (Continue On Fail: an error item).
	['Own quota, ACC_0002 credential', () => pai('Own quota, ACC_0002 credential', { operation: 'getAvailableQuota', connectedAccountId: 'own', quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD', options: {} }, withToken('ACC_0002', { onError: 'continueRegularOutput' }))],
];

/** The AI agent's questions, in order (smoke.mjs's agent-tool checks each answer): the example's note's, and one naming no account. */
export const AGENT_QUESTIONS = [
	'How much USD quota does user U-1001 of our own account have left?',
	'And user U-2001 of customer ACC_0002, how much USD quota?',
	'How much USD quota does user U-CONTRACT of our own account have left?',
	'How much USD quota does user U-1001 have left?',
	'List the beneficiaries of customer CUST_SMALL named 深圳',
	'List the beneficiaries of my own account',
];

/** The smoke runs: file name -> workflow (smoke.mjs checks each by that name). */
export const SMOKE = {
	'list-all-pages': workflow('PaiSmokeListAll1', '[smoke] Get Many Beneficiaries: Return All, CUST_LARGE', [start(), list('CUST_LARGE')]),
	'list-default': workflow('PaiSmokeListDflt', '[smoke] Get Many Beneficiaries: the default item (Simplify, Mask Bank Details), CUST_LARGE', [start(), listing('CUST_LARGE')]),
	'list-filtered': workflow('PaiSmokeListFilt', '[smoke] Get Many Beneficiaries: USD/EUR bank accounts, CUST_LARGE', [start(), list('CUST_LARGE', { currencyList: ['USD', 'EUR'], assetType: 'BANK_ACCOUNT' })]),
	'list-account-name': workflow('PaiSmokeListName', '[smoke] Get Many Beneficiaries: account name 深圳, CUST_SMALL', [start(), list('CUST_SMALL', { accountName: '深圳' })]),
	'list-limit': workflow('PaiSmokeListLim1', '[smoke] Get Many Beneficiaries: Limit 60, CUST_LARGE (2 of its 7 pages)', [start(), list('CUST_LARGE', {}, { returnAll: false, limit: 60 })]),
	quota: workflow('PaiSmokeQuota001', '[smoke] Get Available Quota: USER_ID U-1001 USD', [start(), quota()]),
	'quota-error': workflow('PaiSmokeQuotaErr', '[smoke] Get Available Quota: U-CONTRACT fails', [start(), quota({})]),
	'quota-continue-on-fail': workflow('PaiSmokeQuotaCof', '[smoke] Get Available Quota: U-CONTRACT with Continue On Fail', [start(), quota({ onError: 'continueRegularOutput' })]),
	'quota-accounts': workflow('PaiSmokeQuotaAcc', '[smoke] Get Available Quota: own, ACC_0002 and ACC_0003 in one execution', [
		start(), fromJson('Quota Requests', { requests: ACCOUNTS.map(([account, id]) => ({ account, id })) }), splitOut('requests'),
		quota(undefined, { connectedAccountId: '={{ $json.account }}', quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: '={{ $json.id }}', currency: 'USD' }),
	]),
	'access-token': workflow('PaiSmokeAccTok01', '[smoke] Access Token: two customers\' credentials of their own beside the plain one', [start(), ...TOKEN_NODES.map(([, node]) => node())], {
		Start: { main: [TOKEN_NODES.map(([name]) => ({ node: name, type: 'main', index: 0 }))] },
		...Object.fromEntries(TOKEN_NODES.map(([name]) => [name, undefined])),
	}),
	'quota-expressions': workflow('PaiSmokeQuotaExp', '[smoke] Get Available Quota: parameters from expressions, two items', [
		start(), fromJson('Quota Requests', { requests: [{ method: 'USER_ID', id: 'U-1001', currency: 'USD' }, { method: 'RECEIVING_ACCOUNT', id: 'RA-JPY', currency: 'JPY' }] }), splitOut('requests'), quota(undefined, byExpression),
	]),
	'export-csv': workflow('PaiSmokeExport01', '[smoke] Export: Get Many Beneficiaries -> Convert to File (CSV) -> Write to disk', [
		start(), list('CUST_LARGE'),
		['Convert to File', 'n8n-nodes-base.convertToFile', 1.1, { operation: 'csv', binaryPropertyName: 'data', options: { fileName: 'beneficiaries.csv' } }],
		['Write File to Disk', 'n8n-nodes-base.readWriteFile', 1, { operation: 'write', fileName: '={{ $env.PAI_SMOKE_EXPORT_DIR }}/beneficiaries.csv', dataPropertyName: 'data', options: {} }],
	]),
	// The tools are examples/ai-agent-tool.json's, put in by smoke.mjs; the model is fake-openai.mjs.
	'agent-tool': workflow('PaiSmokeAgent001', '[smoke] AI Agent: the package as a tool, $fromAI parameters, local fake model', [
		start(),
		fromJson('Questions', { questions: AGENT_QUESTIONS.map((question) => ({ question })) }),
		splitOut('questions'),
		['AI Agent', '@n8n/n8n-nodes-langchain.agent', 2.2, { promptType: 'define', text: '={{ $json.question }}', options: { systemMessage: 'Answer with the tool.' } }],
		['Local Chat Model', '@n8n/n8n-nodes-langchain.lmChatOpenAi', 1.2, { model: { __rl: true, mode: 'id', value: 'gpt-4.1-mini' }, options: {} }, { credentials: { openAiApi: { id: 'PaiSmokeOpenAi01', name: 'Local fake OpenAI' } } }],
		...['Get available quota', 'List beneficiaries', 'List my own beneficiaries'].map((name) => [name, `${PACKAGE}.partnerAccountInquiryTool`, 1, {}, { credentials }]),
	], {
		'Split Out': { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] }, 'AI Agent': undefined, 'Local Chat Model': toAgent('ai_languageModel'),
		'Get available quota': toAgent('ai_tool'), 'List beneficiaries': toAgent('ai_tool'), 'List my own beneficiaries': toAgent('ai_tool'),
	}),
};

/** test:queue's production webhooks. */
export const QUEUE = [
	workflow('PaiQueueList0001', '[queue] Webhook: Get Many Beneficiaries, Return All', [webhook('pai-queue-list', 'allEntries', 'c0a1c2d3-0000-4000-8000-0000000000a1'), list('={{ $json.body.customerId }}')]),
	workflow('PaiQueueQuota001', '[queue] Webhook: Get Available Quota', [webhook('pai-queue-quota', 'firstEntryJson', 'c0a1c2d3-0000-4000-8000-0000000000a2'), quota(undefined, { connectedAccountId: 'own', quotaAccumulationMethod: '={{ $json.body.method }}', quotaAccumulationId: '={{ $json.body.id }}', currency: '={{ $json.body.currency }}' })]),
];

/** The README's screenshot. */
export const SCREENSHOT = workflow('PaiScreenshot001', 'Partner Account Inquiry: beneficiaries in USD or EUR', [
	start('When clicking ‘Execute workflow’'), listing('CUST_LARGE', { currencyList: ['USD', 'EUR'], assetType: 'BANK_ACCOUNT', relationFilter: ['THIRD_PARTY'] }),
]);
