/**
 * The simulator's admin action remove-beneficiary (what README.md tells a user to curl for a
 * Removed event): it unbinds one beneficiary by its reference ID or its token, and the trigger,
 * through n8n's engine, reports it removed.
 */
import { useSimulator } from '../support/helpers';
import { itemsOf, useClock } from '../support/pollerApp';
import { appOf, customerTrigger } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const small = () => sim().beneficiaries('CUST_SMALL');

async function removeBeneficiary(
	body: Record<string, unknown>,
): Promise<{ status: number; json: Record<string, unknown> }> {
	const response = await fetch(`${sim().url}/__admin/remove-beneficiary`, {
		method: 'POST',
		body: JSON.stringify(body),
	});
	return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('POST /__admin/remove-beneficiary', () => {
	it('by reference ID: that one is unbound, and the trigger reports it Removed', async () => {
		const n8n = app(customerTrigger('one', ['beneficiaryRemoved']), 'emit');
		expect(itemsOf(await n8n.activate())).toEqual([]);
		const [before, gone, after] = small()
			.slice(0, 3)
			.map((b) => b.referenceBeneficiaryId);
		const size = small().length;
		const answer = await removeBeneficiary({ customerId: 'CUST_SMALL', referenceBeneficiaryId: gone });
		expect(answer.status).toBe(200);
		expect(answer.json.referenceBeneficiaryId).toBe(gone);
		expect(small()).toHaveLength(size - 1);
		expect(
			small()
				.slice(0, 2)
				.map((b) => b.referenceBeneficiaryId),
		).toEqual([before, after]);
		expect(itemsOf(await n8n.poll()).map((i) => [i.event, i.referenceBeneficiaryId])).toEqual([
			['beneficiaryRemoved', gone],
		]);
	});

	it('by beneficiary token: the one with that token is unbound', async () => {
		const target = small()[4];
		const answer = await removeBeneficiary({ customerId: 'CUST_SMALL', beneficiaryToken: target.beneficiaryToken });
		expect(answer.status).toBe(200);
		expect(answer.json.referenceBeneficiaryId).toBe(target.referenceBeneficiaryId);
		expect(small().map((b) => b.beneficiaryToken)).not.toContain(target.beneficiaryToken);
	});

	it.each([
		[{ customerId: 'CUST_SMALL', referenceBeneficiaryId: 'REF-NO-SUCH' }, /no beneficiary REF-NO-SUCH for CUST_SMALL/],
		[{ customerId: 'CUST_SMALL' }, /referenceBeneficiaryId or beneficiaryToken/],
	])('%j: refused (400, saying why), nothing unbound', async (body, why) => {
		const size = small().length;
		const answer = await removeBeneficiary(body);
		expect(answer.status).toBe(400);
		expect(String(answer.json.error)).toMatch(why);
		expect(small()).toHaveLength(size);
	});
});
