// What n8n's SQLite database says of the trigger workflow's executions (smoke-line.sh; queue mode
// asks PostgreSQL the same with psql):
//
//   node scripts/n8n-app/trigger/executions-sqlite.mjs <n8n app dir> <database.sqlite> <workflow ID> <text>
//
// Prints "<executions of the workflow> <ID of a successful one whose data contains text, or ->".
// Uses the sqlite3 module the n8n app itself ships, so nothing is installed for it.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [appDir, databaseFile, workflowId, text] = process.argv.slice(2);
const sqlite3 = createRequire(join(appDir, 'package.json'))('sqlite3');
const db = new sqlite3.Database(databaseFile, sqlite3.OPEN_READONLY);
const all = (sql, ...params) =>
	new Promise((resolve, reject) => db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))));
try {
	const [{ total }] = await all('select count(*) as total from execution_entity where workflowId = ?', workflowId);
	const matching = await all(
		`select e.id as id from execution_entity e join execution_data d on d.executionId = e.id
		 where e.workflowId = ? and e.status = 'success' and instr(d.data, ?) > 0 limit 1`,
		workflowId,
		text,
	);
	console.log(`${total} ${matching[0]?.id ?? '-'}`);
} finally {
	db.close();
}
