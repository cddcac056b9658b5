import { joinUrl } from '../../nodes/PartnerAccountInquiry/shared/core/api/gateway';
import {
	buildStringToSign,
	signingUri,
	stringToSignParts,
} from '../../nodes/PartnerAccountInquiry/shared/core/signing/stringToSign';
import { signingVectors } from '../fixtures/vectors';

describe('buildStringToSign (docs/api.md, Signing a request)', () => {
	it.each(signingVectors.map((v) => [v.name, v] as const))('matches the vector: %s', (_name, v) => {
		const content = buildStringToSign({
			method: v.method,
			uri: v.uri,
			clientId: v.clientId,
			time: v.requestTime,
			body: v.body,
		});
		expect(content.toString('base64')).toBe(v.contentBase64);
	});

	it('joins the three parts exactly: "<method> <uri>\\n<client>.<time>.<body>"', () => {
		const content = buildStringToSign({ method: 'post', uri: '/p?q=1', clientId: 'C', time: 'T', body: '{"a":1}' });
		expect(content.toString('utf8')).toBe('POST /p?q=1\nC.T.{"a":1}');
	});

	it('signs body bytes as given, without re-encoding them', () => {
		const body = Buffer.from([0x7b, 0xc3, 0xa9, 0x7d]);
		const content = buildStringToSign({ method: 'POST', uri: '/', clientId: 'c', time: 't', body });
		expect(content.subarray(content.length - 4)).toEqual(body);
	});

	it.each(signingVectors.map((v) => [v.name, v] as const))(
		'in pieces, is the same content, body not copied: %s',
		(_n, v) => {
			const body = Buffer.from(v.body, 'utf8');
			const [head, tail] = stringToSignParts({
				method: v.method,
				uri: v.uri,
				clientId: v.clientId,
				time: v.requestTime,
				body,
			});
			expect(Buffer.concat([head, tail]).toString('base64')).toBe(v.contentBase64);
			expect(tail).toBe(body);
		},
	);
});

describe('joinUrl and signingUri', () => {
	it.each([
		['https://open-sea.worldfirst.com', '/amsin/api/v1/x', '/amsin/api/v1/x'],
		['https://open-sea.worldfirst.com/', '/amsin/api/v1/x', '/amsin/api/v1/x'],
		['https://host/gw', '/amsin/api/v1/x', '/gw/amsin/api/v1/x'],
		['https://host/gw/', 'amsin/api/v1/x', '/gw/amsin/api/v1/x'],
		['http://127.0.0.1:8080/a/b', '/amsin/api/v1/x?trace=1', '/a/b/amsin/api/v1/x?trace=1'],
	])('%s + %s signs %s', (base, path, uri) => {
		expect(signingUri(joinUrl(base, path))).toBe(uri);
	});
});
