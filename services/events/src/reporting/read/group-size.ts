/**
 * What one merged group costs the process, roughly, beyond its strings: the Map entry, the group
 * object, its key string's header and the headers of the field strings. Measured on Node 20:
 * a group with a 40-character url holds about 380 bytes in all. Each aggregate adds its state's
 * own estimate (Aggregate.bytes).
 */
export const GROUP_OVERHEAD_BYTES = 240;

/**
 * Estimated bytes the groups of one report may hold. An outsider can send a victim's pixel
 * 200,000 distinct 2 KB urls in minutes: ranked, those would take about 1 GB, past a 768 MiB
 * pod. At 96 MiB a report stops near 100 MB in the worst case, so a few reports at once fit
 * next to the service itself, while 200,000 groups of short urls (REPORT_MAX_RANKED_GROUPS)
 * still fit. Every character counts once in the group key and once in its field: an upper
 * bound for one-byte strings (V8 may share them) and the real size of two-byte ones.
 */
export const MAX_GROUP_BYTES = 96 * 1024 * 1024;
