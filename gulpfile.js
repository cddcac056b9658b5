/**
 * tsc compiles the TypeScript; n8n also loads the files beside each built node and credential:
 * the icons (light and dark SVG) and the node's codex (*.node.json). This copies them into dist/.
 */
const { src, dest, task } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{svg,png,json}', 'credentials/**/*.{svg,png}', 'icons/*.svg'], { base: '.', encoding: false }).pipe(
		dest('dist/'),
	);
}

task('build:assets', copyAssets);
