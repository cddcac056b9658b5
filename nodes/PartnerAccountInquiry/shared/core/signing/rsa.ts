import { createVerify, sign, verify, type KeyObject } from 'node:crypto';

/** Signing (docs/api.md, Signing a request): SHA-256, RSA PKCS#1 v1.5 (`SHA256withRSA`). Deterministic for a key and content. */
export function signContent(privateKey: KeyObject, content: Buffer): Buffer {
	return sign('sha256', content, privateKey);
}

/** Verifying (docs/api.md, Verifying a response). The content may come in pieces (head, body): they are hashed in order, never joined. */
export function verifyContent(publicKey: KeyObject, content: Buffer | readonly Buffer[], signature: Buffer): boolean {
	if (Buffer.isBuffer(content)) return verify('sha256', content, publicKey, signature);
	const verifier = createVerify('sha256');
	for (const part of content) verifier.update(part);
	return verifier.verify(publicKey, signature);
}
