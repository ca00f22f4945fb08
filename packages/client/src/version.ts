/** Kept equal to package.json by a unit test; sent in the default User-Agent. */
export const VERSION = '0.1.0';
