import { sign, verify, type KeyObject } from 'node:crypto';

/** Spec 5.3 step 2: SHA-256, RSA PKCS#1 v1.5 (`SHA256withRSA`). Deterministic for a key and content. */
export function signContent(privateKey: KeyObject, content: Buffer): Buffer {
	return sign('sha256', content, privateKey);
}

/** Spec 5.4 step 3. */
export function verifyContent(publicKey: KeyObject, content: Buffer, signature: Buffer): boolean {
	return verify('sha256', content, publicKey, signature);
}
