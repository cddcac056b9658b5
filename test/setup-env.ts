/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test setup, not in the published package */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core's InstanceSettings writes <N8N_USER_FOLDER>/.n8n/config: keep it out of $HOME.
// One folder per jest worker, reused from run to run (no temp folders left behind).
process.env.N8N_USER_FOLDER = join(tmpdir(), `pai-n8n-test-worker-${process.env.JEST_WORKER_ID ?? '1'}`);
mkdirSync(process.env.N8N_USER_FOLDER, { recursive: true });
process.env.N8N_ENCRYPTION_KEY = 'test-only-encryption-key';
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS = 'false';
process.env.N8N_LOG_LEVEL = 'silent';
