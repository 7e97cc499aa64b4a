/**
 * Modules the tests use that ship no type declarations (checked by `tsconfig.tests.json`).
 * `oidc-provider` is a real authorization server the tests start; its API is used loosely.
 */
declare module 'oidc-provider';
