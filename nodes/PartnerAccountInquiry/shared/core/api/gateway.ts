import { ValidationError } from '../errors';

/** The two endpoints (docs/api.md, Endpoints): POST, JSON in and out. */
export const PATHS = {
	listBeneficiaries: '/amsin/api/v1/business/account/inquiryBeneficiaryList',
	getAvailableQuota: '/amsin/api/v1/business/account/inquiryAvailableQuota',
} as const;

/** Regional gateways. Sandbox hosts are handed out by the vendor: hence `custom`. */
export const GATEWAYS = {
	sg: { name: 'Singapore (Asia)', url: 'https://open-sea.worldfirst.com' },
	eu: { name: 'Europe', url: 'https://open-eu.worldfirst.com' },
	na: { name: 'North America', url: 'https://open-na.worldfirst.com' },
} as const;

function isLoopbackHost(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The base URL requests go to. A custom one must be an absolute https URL (or http on a loopback
 * host, for the local simulator) with no query or fragment; it may carry a path, which is signed.
 */
export function resolveBaseUrl(environment: string, customBaseUrl?: string): string {
	if (Object.hasOwn(GATEWAYS, environment)) return GATEWAYS[environment as keyof typeof GATEWAYS].url;
	if (environment !== 'custom') {
		throw new ValidationError(
			'environment',
			'one of sg, eu, na, custom',
			`Unknown gateway "${environment}"`,
			'Choose a gateway in the credential.',
		);
	}
	const text = (customBaseUrl ?? '').trim();
	if (!URL.canParse(text)) {
		throw new ValidationError(
			'baseUrl',
			'absolute URL',
			"The credential's Base URL is not an absolute URL",
			'Enter the gateway address the vendor gave you, for example https://open-sea.worldfirst.com',
			`It is "${text}".`,
		);
	}
	const url = new URL(text);
	if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
		throw new ValidationError(
			'baseUrl',
			'https',
			"The credential's Base URL does not use https",
			'Use the https:// address of the gateway: requests carry money data and signatures.',
			`It is "${text}"; plain http:// is accepted only for a simulator on this machine (127.0.0.1, localhost or ::1).`,
		);
	}
	if (url.search || url.hash || url.username || url.password) {
		throw new ValidationError(
			'baseUrl',
			'no query, fragment or user info',
			"The credential's Base URL has a query string, a fragment or user info",
			'Enter only scheme, host, optional port and optional path, for example https://gateway.example.com/gw',
		);
	}
	return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The URL a request goes to: the base URL (which may carry a path of its own, `https://host/gw`;
 * it is part of what is sent, so part of what is signed) followed by the endpoint's path.
 */
export function joinUrl(baseUrl: string, path: string): string {
	if (/^https?:\/\//i.test(path)) return path;
	return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
