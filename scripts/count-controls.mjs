/**
 * scripts/count-controls.mjs (part of npm run lint, through lint-editor.mjs)
 *
 * How many controls a person meets in the editor, per node and per choice that shapes the screen
 * (an Operation, a trigger's kind of Events): "shown" is what the node's panel shows before anything
 * is opened (n8n's Poll Times counted for a polling node, the credential not), "opened" what it shows
 * with every collection opened (a collection counts as its options). Counted on the evaluated
 * descriptions with n8n's own display rules (NodeHelpers.getNodeParameters and displayParameter), so
 * a change that hides or shows a parameter changes the count.
 *
 * The rule (TRIGGER_MOST_SHOWN, checked by lint-editor.mjs): each case of the trigger shows at most
 * 5 controls, as n8n's Gmail Trigger does. `node scripts/lint-editor.mjs --count` prints every case.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(path.join(root, 'package.json'));
const { NodeHelpers } = require('n8n-workflow');

export const TRIGGER_MOST_SHOWN = 5;

/**
 * The cases of a node: every combination of its structural choices (a top-level options parameter
 * that takes no expression, each of its values; a multiOptions one, each option alone), kept when
 * it shows another set of controls than the cases before it.
 */
function cases(properties) {
	const choices = properties.filter(
		(p) => p.noDataExpression && (p.type === 'options' || p.type === 'multiOptions') && p.options?.length,
	);
	let combos = [{}];
	for (const choice of choices) {
		const values = choice.options.map((o) => (choice.type === 'multiOptions' ? [o.value] : o.value));
		combos = combos.flatMap((combo) => values.map((value) => ({ ...combo, [choice.name]: value })));
	}
	return combos;
}

/** The node's values for `values` (its defaults filled in, as n8n fills them) and the top-level parameters they show. */
function shownFor(description, values) {
	const node = { parameters: {}, typeVersion: description.version, type: description.name };
	const filled = NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description) ?? {};
	const shown = description.properties.filter((p) => NodeHelpers.displayParameter(filled, p, node, description, filled));
	return { filled, shown };
}

/**
 * The controls once every collection is opened: a collection's options shown there (their display
 * rules read against the node's values), a fixedCollection's fields (one row of each kind).
 */
function opened(shown, description, filled) {
	const node = { parameters: filled, typeVersion: description.version, type: description.name };
	return shown.reduce((n, p) => {
		if (p.type === 'collection')
			return n + p.options.filter((o) => NodeHelpers.displayParameter({}, o, node, description, filled)).length;
		if (p.type === 'fixedCollection') return n + p.options.reduce((m, section) => m + section.values.length, 0);
		return n + 1;
	}, 0);
}

/** Each distinct screen of a node: the case that shows it, and its counts. */
export function countControls(description) {
	const polling = description.polling ? 1 : 0;
	const seen = new Map();
	for (const values of cases(description.properties)) {
		const { filled, shown: all } = shownFor(description, values);
		const shown = all.filter((p) => p.type !== 'notice');
		const key = shown.map((p) => p.name).join(',');
		if (seen.has(key)) continue;
		const label = Object.entries(values)
			.map(([k, v]) => `${k}=${[].concat(v).join('|')}`)
			.join(', ');
		seen.set(key, {
			node: description.displayName,
			case: label || '(one screen)',
			shown: shown.length + polling,
			opened: opened(shown, description, filled) + polling,
			controls: [...(polling ? ['Poll Times'] : []), ...shown.map((p) => p.displayName)],
		});
	}
	return [...seen.values()];
}

export function printTable(descriptions, out = console.log) {
	for (const row of descriptions.flatMap(countControls))
		out(`${row.node} | ${row.case} | shown ${row.shown} | opened ${row.opened} | ${row.controls.join(', ')}`);
}
