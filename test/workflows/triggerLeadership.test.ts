/**
 * Multi-main: when the leader steps down, another main takes over and n8n activates the workflow
 * there in mode 'leadershipChange', which n8n treats as it treats its own start ('init'): a failure
 * of that activation poll fails the workflow's activation on the new leader. So that poll reports
 * nothing; a report due then comes at the next poll, once (a hostile look at multi-main found the
 * trigger threw it there, failing the activation).
 */
import type { IDataObject } from 'n8n-workflow';

import { useSimulator } from '../support/helpers';
import { itemsOf, useClock } from '../support/pollerApp';
import { appOf, customerTrigger } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'General business failure' } as const;

it('a report due at a leadership change comes at the new leader’s next poll, once, not from its activation poll', async () => {
	const n8n = app(customerTrigger('set', ['beneficiaryAdded']), 'emit');
	expect((await n8n.activate()).error).toBeUndefined();
	const small = sim().beneficiaries('CUST_SMALL');
	const token = Buffer.from('token:REF-LEAD-1').toString('base64');
	small.push({ ...small[0], referenceBeneficiaryId: 'REF-LEAD-1', beneficiaryToken: token });
	sim().addFault({ fault: 'answer', operation: 'list', customerId: 'CUST_EMPTY', answer: FAIL, times: 1 } as never);
	// The poll emits CUST_SMALL's Added; CUST_EMPTY's failure waits for the next poll's report.
	const emitted = await n8n.poll();
	expect(itemsOf(emitted).map((item: IDataObject) => item.referenceBeneficiaryId)).toEqual(['REF-LEAD-1']);
	const takeover = await n8n.failover();
	expect(takeover?.error?.message).toBeUndefined();
	const reported = await n8n.poll();
	expect(reported.error?.message).toContain('CUST_EMPTY');
	const after = await n8n.poll();
	expect(after.error).toBeUndefined();
	expect(itemsOf(after)).toEqual([]);
});
