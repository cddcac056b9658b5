/**
 * A trigger whose workflow n8n will never save is refused at activation: n8n saves a workflow's
 * static data only for an ID of at most 16 characters (1.x, and 2.0 to 2.6) or 21 (2.7 on; its
 * `isWorkflowIdValid`), and a trigger without saved state would forget its baseline at every
 * restart. Both rules: the installed n8n-workflow is 2.x's; 1.x's is played by an n8n-workflow
 * without the export 2.7 added (MCP_CLIENT_NODE_TYPE), the sign the node reads.
 */
import type { INodeParameters } from 'n8n-workflow';

import { sandboxCredentials } from '../../sandbox/engine';
import { QUOTA, useSimulator } from '../support/helpers';
import { n8nApp } from '../support/n8nApp';

type N8nApp = typeof n8nApp;

const { sim } = useSimulator();
const parameters = {
	events: ['quotaChanged'],
	quotas: { quota: [{ connectedAccountId: 'own', ...QUOTA }] },
} as unknown as INodeParameters;
const open = (app: N8nApp, workflowId: string, saving: 'emit' | 'durable' = 'emit') =>
	app({ parameters, credentials: sandboxCredentials(sim().url), saving, typeVersion: 1, workflowId });

describe('n8n 2.x (from 2.7): IDs of at most 21 characters are saved', () => {
	it.each(['emit', 'durable'] as const)(
		'an ID of 22 characters is refused at activation, naming the cause and the fix (%s)',
		async (saving) => {
			const poll = await open(n8nApp, 'PaiExampleBankAlert123', saving).activate();
			expect(poll.error?.message).toBe(
				'Not activated: this n8n saves no trigger state for a 22-character workflow ID',
			);
			expect(poll.error?.description).toMatch(/Import the workflow again with an "id" of at most 21 characters/);
		},
	);

	it('an ID of 21 characters is activated, and so is n8n starting with it', async () => {
		const app = open(n8nApp, 'PaiExampleBankAlert12');
		expect((await app.activate()).error).toBeUndefined();
		sim().setQuota('USER_ID', 'U-1001', '300');
		expect((await app.restart())?.error).toBeUndefined();
	});

	it('n8n starting with a workflow of 22 characters published before refuses it too', async () => {
		const poll = await open(n8nApp, 'PaiExampleBankAlert123').start();
		expect(poll.error?.message).toMatch(/saves no trigger state for a 22-character workflow ID$/);
		expect(poll.error?.description).toMatch(/an "id" of at most 21 characters/);
	});
});

describe('n8n 1.x (and 2.0 to 2.6): IDs of at most 16 characters are saved', () => {
	it('an ID of 17 characters is refused; one of 16 is activated', async () => {
		await jest.isolateModulesAsync(async () => {
			jest.doMock('n8n-workflow', () => {
				const older = { ...jest.requireActual<Record<string, unknown>>('n8n-workflow') };
				delete older.MCP_CLIENT_NODE_TYPE;
				return older;
			});
			const older = (await import('../support/n8nApp')).n8nApp;
			const refused = await open(older, 'PaiExampleTrigger').activate();
			expect(refused.error?.message).toMatch(/saves no trigger state for a 17-character workflow ID$/);
			expect(refused.error?.description).toMatch(/an "id" of at most 16 characters/);
			expect((await open(older, 'PaiExBankAlert01').activate()).error).toBeUndefined();
		});
	});
});
