// The passwords TestServer gives the users it creates, unless a test names
// another. test/support/global-setup.js hashes them once for the run.

/** The owner of each organization TestServer creates. */
export const OWNER_PASSWORD = 'owner-password';
/** Every other user TestServer creates. */
export const USER_PASSWORD = 'password';

export const TEST_PASSWORDS = [OWNER_PASSWORD, USER_PASSWORD];
