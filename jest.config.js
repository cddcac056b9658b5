/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
	setupFiles: ['<rootDir>/test/setup-env.ts'],
	// A guard against a hang, not a speed goal (those live in `npm run bench`): CI runs jest beside two
	// n8n apps installing and starting, where a test that polls 1,000 simulated minutes through the
	// engine (4 s alone) was seen taking over 60 s. A test that times out keeps running behind the next.
	testTimeout: 300_000,
};
