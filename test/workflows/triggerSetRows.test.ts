/**
 * Watch Many's rows as entered are checked whole before any request: a row of spaces, the same
 * customer twice (once with a space), pasted columns in another order. A refusal names no account
 * number whole. Through n8n's engine.
 */
import { useSimulator } from '../support/helpers';
import { customerSet as customers, triggerOf, useClock } from '../support/pollerApp';

const { sim } = useSimulator();

useClock();
const trigger = triggerOf(sim);

describe('Watch Many rows, refused before any request', () => {
	it('a customer row of spaces is refused, never read as the partner own list', async () => {
		const result = await trigger(customers(['CUST_SMALL', '   ']), {}).poll();
		const lists = sim().requests.filter((r) => r.path.includes('Beneficiar'));
		expect(lists.filter((r) => !r.body.includes('"customerId"'))).toHaveLength(0);
		expect(result.ok).toBe(false);
	});

	it('the same customer in two rows, once with a space, is refused as a repeat', async () => {
		const result = await trigger(customers(['CUST_SMALL', 'CUST_SMALL ']), {}).poll();
		expect(!result.ok && result.error.message).toMatch(/row 2 repeats row 1/);
	});

	it('the same customer in two rows, once with a leading space: refused before any request, so nothing is reported twice', async () => {
		const poller = trigger(customers(['CUST_SMALL', ' CUST_SMALL']), {});
		const first = await poller.poll();
		expect(first.ok ? 'read' : first.error.message).toMatch(/row 2 repeats row 1/);
		const list = sim().beneficiaries('CUST_SMALL');
		list.push({
			...list[0],
			referenceBeneficiaryId: 'REF-R25',
			beneficiaryToken: Buffer.from('token:R25').toString('base64'),
		});
		// An added beneficiary changes nothing: the set is refused again, and no list was ever read.
		const second = await poller.poll();
		expect(second.ok ? 'read' : second.error.message).toMatch(/row 2 repeats row 1/);
		expect(sim().requests).toHaveLength(0);
	});

	it('a pasted line with its columns in another order: the refusal names no account number whole', async () => {
		const result = await trigger(
			{
				triggerOn: 'quota',
				events: ['quotaBelowThreshold'],
				watch: 'many',
				threshold: 100,
				subjectsEntry: 'text',
				subjectsText: '6222021234567890, RECEIVING_ACCOUNT, USD\nRECEIVING_ACCOUNT, USD, 6222021234567891',
			},
			{},
		).poll();
		expect(result.ok).toBe(false);
		const message = result.ok ? '' : `${result.error.message} ${result.error.description ?? ''}`;
		expect(message).toMatch(/line 1: .*line 2: /);
		expect(message).not.toContain('6222021234567890');
		expect(message).not.toContain('6222021234567891');
	});
});
