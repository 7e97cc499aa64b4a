/** The shapes of names and ids in memory requests. */

export const NAME = /^[a-z][a-z0-9_]{2,62}$/;
/** Saved queries are offered as tools `sq_<name>`, and tool names have at most 64 characters. */
export const SAVED_QUERY_NAME_MAX = 61;
export const TOOL = /^[a-z][a-z0-9_]{0,63}$/;
export const PARAMETER = /^[a-z][a-z0-9_]{0,62}$/;
export const KIND = /^[a-z][a-z0-9_]{1,63}$/;
export const PREFERENCE_KEY = /^[a-z0-9][a-z0-9_.:-]{0,127}$/;
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const ITEM_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
