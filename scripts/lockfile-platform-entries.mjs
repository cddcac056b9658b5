#!/usr/bin/env node
/**
 * Keeps `npm ci` working with this registry. unrs-resolver (pulled in by n8n's lint) lists native
 * bindings for 21 platforms as optional dependencies; the registry reachable here serves only the
 * Linux ones, so `npm install` leaves the others out of package-lock.json and `npm ci` then refuses
 * the lock file as "out of sync". This adds an entry for each missing binding, marked with its
 * os/cpu so npm skips it on every other platform, exactly as a lock made with the full registry has.
 * Run it after `npm install` changes the lock file: node scripts/lockfile-platform-entries.mjs
 */
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const resolver = lock.packages['node_modules/unrs-resolver'];
if (!resolver) process.exit(0);

const PLATFORM = {
	android: { os: ['android'] },
	darwin: { os: ['darwin'] },
	freebsd: { os: ['freebsd'] },
	linux: { os: ['linux'] },
	openharmony: { os: ['openharmony'] },
	win32: { os: ['win32'] },
};
const CPU = { arm: 'arm', 'arm-eabi': 'arm', arm64: 'arm64', x64: 'x64', ia32: 'ia32', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x' };

let added = 0;
for (const [name, version] of Object.entries(resolver.optionalDependencies ?? {})) {
	const key = `node_modules/${name}`;
	if (lock.packages[key]) continue;
	const [os, cpu, abi] = name.replace('@unrs/resolver-binding-', '').split('-');
	const entry = {
		version,
		resolved: `https://registry.npmjs.org/${name}/-/${name.split('/')[1]}-${version}.tgz`,
		cpu: [CPU[abi === 'eabi' ? 'arm-eabi' : cpu] ?? cpu],
		dev: true,
		license: 'MIT',
		optional: true,
		...PLATFORM[os],
	};
	if (abi === 'gnu' || abi === 'gnueabihf') entry.libc = ['glibc'];
	if (abi === 'musl' || abi === 'musleabihf') entry.libc = ['musl'];
	lock.packages[key] = entry;
	added++;
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);
