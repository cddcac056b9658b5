// The live check of the polling trigger, shared by smoke-line.sh (n8n start, one process) and
// test-queue.sh (queue mode). trigger/beneficiary-added.json polls CUST_SMALL at second 0 of every
// minute.
//
//   node scripts/n8n-app/trigger/live.mjs bind-after-poll <simulator URL> <app ready at, ms> <reference ID>
//     Waits until a scheduled poll has recorded the list (a request reaches the simulator within
//     15 s after a minute starts, at least 20 s after the app was ready, so not the activation's
//     own poll), then binds a new beneficiary with that reference ID to CUST_SMALL through the
//     simulator and prints the ID. The next poll must start exactly one execution carrying it;
//     the caller checks that in the app's database.
//   node scripts/n8n-app/trigger/live.mjs await-poll <simulator URL>
//     Waits for the next minute's poll (a request within 15 s after a later minute starts), so
//     that the caller can check that it started no second execution.
//
// Exits 1 if no poll reached the simulator within 150 s.
const [command, simulatorUrl, readyAtMs, reference] = process.argv.slice(2);
const requestsSoFar = async () => (await (await fetch(`${simulatorUrl}/__stats`)).json()).requests;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function awaitPoll(accept) {
	const deadline = Date.now() + 150_000;
	let before = await requestsSoFar();
	while (Date.now() < deadline) {
		await sleep(1000);
		const now = await requestsSoFar();
		if (now > before && accept()) return true;
		before = now;
	}
	return false;
}

if (command === 'await-poll' && simulatorUrl) {
	// The next minute's poll (other workflows may poll the simulator more often): a request within
	// 15 s after a later minute starts.
	const minute = Math.floor(Date.now() / 60_000);
	const nextMinute = () => Math.floor(Date.now() / 60_000) > minute && new Date().getUTCSeconds() < 15;
	process.exit((await awaitPoll(nextMinute)) ? 0 : 1);
} else if (command === 'bind-after-poll' && reference) {
	const scheduled = () => new Date().getUTCSeconds() < 15 && Date.now() - Number(readyAtMs) > 20_000;
	if (!(await awaitPoll(scheduled))) process.exit(1);
	const response = await fetch(`${simulatorUrl}/__admin/add-beneficiary`, {
		method: 'POST',
		body: JSON.stringify({ customerId: 'CUST_SMALL', referenceBeneficiaryId: reference }),
	});
	const bound = await response.json();
	if (bound.referenceBeneficiaryId !== reference) {
		console.error(`the simulator did not bind ${reference}`);
		process.exit(1);
	}
	console.log(reference);
} else {
	console.error('usage: live.mjs bind-after-poll <simulator URL> <app ready at, ms> <reference ID> | await-poll <simulator URL>');
	process.exit(2);
}
