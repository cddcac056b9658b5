/**
 * On Error "Continue" (regular output, or the error output): every input item that cannot be
 * answered becomes an error item in its own place, also when the whole node cannot run (a
 * credential whose key cannot be used, an unknown operation). Thrown instead, n8n would pass the
 * input items on as the node's output, where a following node expects answers.
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { NodeRun } from '../../sandbox/engine';
import { OK_QUOTA, QUOTA, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();

const ROWS: IDataObject[] = [{ row: 'first' }, { row: 'second' }, { row: 'third' }];

/** The node's two outputs as n8n recorded them: the main one, and the error output when there is one. */
function outputs(run: NodeRun): { main: INodeExecutionData[]; errors: INodeExecutionData[] } {
	const task = run.run.data.resultData.runData['Partner Account Inquiry']?.[0];
	const main = (task?.data?.main ?? []) as INodeExecutionData[][];
	return { main: main[0] ?? [], errors: main[1] ?? [] };
}

const WHOLE_NODE_FAILURES: Array<[string, INodeParameters, ICredentialDataDecryptedObject, RegExp]> = [
	[
		'a private key that cannot be read',
		QUOTA,
		{ privateKey: 'not a key' },
		/^The credential's Private Key could not be read as an RSA key$/,
	],
	[
		'a service public key that cannot be read',
		QUOTA,
		{ servicePublicKey: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----' },
		/^The credential's Service Public Key could not be read as an RSA key$/,
	],
	[
		'an unsupported operation',
		{ ...QUOTA, operation: 'deleteEverything' },
		{},
		/^The operation "deleteEverything" is not supported/,
	],
];

describe('when the whole node cannot run', () => {
	it.each(WHOLE_NODE_FAILURES)(
		'%s: without Continue the node fails',
		async (_name, parameters, credentials, message) => {
			const run = await quota(sim(), parameters, { items: ROWS, credentials });
			expect(run.status).toBe('error');
			expect(run.error?.message).toMatch(message);
			expect(run.json).toEqual([]);
			expect(sim().requests).toHaveLength(0);
		},
	);

	it.each(WHOLE_NODE_FAILURES)(
		'%s: under Continue (regular output) every input item is an error item in its own place',
		async (_name, parameters, credentials, message) => {
			const run = await quota(sim(), parameters, { items: ROWS, credentials, onError: 'continueRegularOutput' });
			expect(run.status).toBe('success');
			expect(run.items).toHaveLength(ROWS.length);
			run.items.forEach((item, index) => {
				expect(item.json.error).toMatch(message);
				expect(item.json.description).toEqual(expect.any(String));
				// An error item, not the input row passed on.
				expect(item.json.row).toBeUndefined();
				expect(item.pairedItem).toEqual({ item: index });
			});
			expect(sim().requests).toHaveLength(0);
		},
	);

	it.each(WHOLE_NODE_FAILURES)(
		'%s: under Continue (error output) every input item goes to the error output, nothing to the success output',
		async (_name, parameters, credentials, message) => {
			const run = await quota(sim(), parameters, { items: ROWS, credentials, onError: 'continueErrorOutput' });
			expect(run.status).toBe('success');
			const { main, errors } = outputs(run);
			expect(main).toEqual([]);
			expect(errors).toHaveLength(ROWS.length);
			errors.forEach((item, index) => {
				// n8n adds the input item's own fields to an item on the error output.
				expect(item.json).toEqual({
					row: ROWS[index].row,
					error: expect.stringMatching(message),
					details: expect.objectContaining({ description: expect.any(String) }),
				});
				expect(item.pairedItem).toEqual({ item: index });
			});
		},
	);
});

describe('items that fail one by one', () => {
	const items = [{ id: 'U-1001' }, { id: 'U-CONTRACT' }, { id: '' }, { id: 'U-1001' }];
	const parameters = { ...QUOTA, quotaAccumulationId: '={{ $json.id }}' };

	it('under Continue (regular output): answers and error items, each in its own place', async () => {
		const run = await quota(sim(), parameters, { items, onError: 'continueRegularOutput' });
		expect(run.json).toEqual([
			OK_QUOTA,
			expect.objectContaining({ resultCode: 'CONTRACT_CHECK_FAIL', resultStatus: 'F' }),
			expect.objectContaining({ field: 'quotaAccumulationId' }),
			OK_QUOTA,
		]);
		expect(run.items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
	});

	it('under Continue (error output): answers on the success output, failures on the error output', async () => {
		const run = await quota(sim(), parameters, { items, onError: 'continueErrorOutput' });
		const { main, errors } = outputs(run);
		expect(main.map((item) => item.json)).toEqual([OK_QUOTA, OK_QUOTA]);
		expect(main.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 3 }]);
		expect(errors.map((item) => item.json)).toEqual([
			{
				id: 'U-CONTRACT',
				error: expect.stringMatching(/^own USER_ID U-CONTRACT USD: The API answered CONTRACT_CHECK_FAIL/),
				details: expect.objectContaining({
					whoseAccount: 'own',
					resultCode: 'CONTRACT_CHECK_FAIL',
					resultStatus: 'F',
					description: expect.any(String),
				}),
			},
			{
				id: '',
				error: 'own quota: Accumulation ID is empty',
				details: expect.objectContaining({
					field: 'quotaAccumulationId',
					description: 'Enter the service user ID whose quota to read. Nothing was sent.',
				}),
			},
		]);
		expect(errors.map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
	});
});
