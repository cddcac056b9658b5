import { ValidationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { GATEWAYS, resolveBaseUrl } from '../../nodes/PartnerAccountInquiry/shared/core/api/gateway';

describe('resolveBaseUrl', () => {
	it.each([
		['sg', 'https://open-sea.worldfirst.com'],
		['eu', 'https://open-eu.worldfirst.com'],
		['na', 'https://open-na.worldfirst.com'],
	])('preset %s is %s', (environment, url) => {
		expect(resolveBaseUrl(environment)).toBe(url);
		expect(GATEWAYS[environment as keyof typeof GATEWAYS].url).toBe(url);
	});

	it.each([
		['https://sandbox.example.com', 'https://sandbox.example.com'],
		['  https://sandbox.example.com/gw/ ', 'https://sandbox.example.com/gw'],
		['https://sandbox.example.com:8443/a/b//', 'https://sandbox.example.com:8443/a/b'],
		['http://127.0.0.1:8787', 'http://127.0.0.1:8787'],
		['http://127.8.9.10/x', 'http://127.8.9.10/x'],
		['http://localhost:3000', 'http://localhost:3000'],
		['http://[::1]:9000/gw', 'http://[::1]:9000/gw'],
	])('custom %p becomes %p', (input, expected) => {
		expect(resolveBaseUrl('custom', input)).toBe(expected);
	});

	it.each([
		['', 'absolute URL'],
		['sandbox.example.com', 'absolute URL'],
		['http://sandbox.example.com', 'https'],
		['http://192.168.1.10:8080', 'https'],
		['http://localhost.evil.com', 'https'],
		['ftp://sandbox.example.com', 'https'],
		['https://user:pw@sandbox.example.com', 'no query, fragment or user info'],
		['https://sandbox.example.com/?x=1', 'no query, fragment or user info'],
		['https://sandbox.example.com/#top', 'no query, fragment or user info'],
	])('refuses %p (rule: %s), naming the Base URL field', (input, rule) => {
		let error: unknown;
		try {
			resolveBaseUrl('custom', input);
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(ValidationError);
		expect((error as ValidationError).field).toBe('baseUrl');
		expect((error as ValidationError).rule).toBe(rule);
		expect((error as ValidationError).message).toMatch(/Base URL/);
	});

	it('refuses an unknown gateway', () => {
		expect(() => resolveBaseUrl('mars')).toThrow(/Unknown gateway "mars"/);
	});

	it('takes plain http on loopback hosts only', () => {
		const http = (host: string) => () => resolveBaseUrl('custom', `http://${host}:8787`);
		for (const host of ['localhost', '127.0.0.1', '127.255.0.1', '[::1]'])
			expect(http(host)()).toBe(`http://${host}:8787`);
		for (const host of ['10.0.0.1', '0.0.0.0', '128.0.0.1', 'localhost.example.com', '[::2]'])
			expect(http(host)).toThrow(/does not use https/);
	});
});
