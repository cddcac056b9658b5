/**
 * A set as entered is checked whole before any request: a line of spaces, the same customer twice
 * (once with a space), pasted columns in another order. A refusal names no account number whole.
 * Through n8n's engine.
 */
import { setRefusal, useSimulator } from '../support/helpers';
import { customerSet as customers, triggerOf, useClock } from '../support/pollerApp';

const { sim } = useSimulator();

useClock();
const trigger = triggerOf(sim);

describe('Customer IDs and quota lines, refused before any request', () => {
	it('a Customer IDs line of spaces is no entry, never read as the partner own list', async () => {
		const result = await trigger(customers(['CUST_SMALL', '   ']), {}).poll();
		const lists = sim().requests.filter((r) => r.path.includes('Beneficiar'));
		expect(lists.length).toBeGreaterThan(0);
		expect(lists.filter((r) => !r.body.includes('"customerId"'))).toHaveLength(0);
		expect(result.ok).toBe(true);
	});

	it('Customer IDs of spaces only is refused as empty, before any request', async () => {
		const result = await trigger(customers(['   ', '']), {}).poll();
		expect(!result.ok && result.error.message).toBe('Customer IDs is empty');
		expect(sim().requests).toHaveLength(0);
	});

	it('the same customer on two lines, once with a space, is refused as a repeat', async () => {
		const result = await trigger(customers(['CUST_SMALL', 'CUST_SMALL ']), {}).poll();
		expect(!result.ok && result.error.message).toBe('Customer IDs has 1 bad entry (line 2)');
		expect(!result.ok && result.error.description).toBe(setRefusal('line 2 repeats line 1'));
	});

	it('the same customer on two lines, once with a leading space: refused before any request, so nothing is reported twice', async () => {
		const poller = trigger(customers(['CUST_SMALL', ' CUST_SMALL']), {});
		const first = await poller.poll();
		expect(first.ok ? 'read' : first.error.message).toBe('Customer IDs has 1 bad entry (line 2)');
		expect(first.ok ? 'read' : first.error.description).toBe(setRefusal('line 2 repeats line 1'));
		const list = sim().beneficiaries('CUST_SMALL');
		list.push({
			...list[0],
			referenceBeneficiaryId: 'REF-R25',
			beneficiaryToken: Buffer.from('token:R25').toString('base64'),
		});
		// An added beneficiary changes nothing: the set is refused again, and no list was ever read.
		const second = await poller.poll();
		expect(second.ok ? 'read' : second.error.message).toBe('Customer IDs has 1 bad entry (line 2)');
		expect(second.ok ? 'read' : second.error.description).toBe(setRefusal('line 2 repeats line 1'));
		expect(sim().requests).toHaveLength(0);
	});

	it('a pasted line with its columns in another order: the refusal names no account number whole', async () => {
		const result = await trigger(
			{
				events: ['quotaBelowThreshold'],
				options: {
					quotasText:
						'own, 6222021234567890, RECEIVING_ACCOUNT, USD, 100\nown, RECEIVING_ACCOUNT, USD, 6222021234567891, 100',
				},
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
