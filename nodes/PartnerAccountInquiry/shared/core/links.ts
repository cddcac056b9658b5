/** Where an error's hint sends a user for what does not fit in it (import-free: read by any module). */

/** The README's "Errors and what to do": each result code, what to do, the status U retry schedule. */
export const ERRORS_DOC =
	'https://github.com/partner-account-inquiry/n8n-nodes-partner-account-inquiry#errors-and-what-to-do';

/** Where a bug of the node is reported. */
export const ISSUES_URL = 'https://github.com/partner-account-inquiry/n8n-nodes-partner-account-inquiry/issues';
