/** The localStorage key of the id persistVisitor keeps (first-party: the publisher's own origin). */
const VISITOR_STORAGE_KEY = 'cm_pixel_vid';

/**
 * The random visitor id kept in localStorage, made on first use (128 bits from
 * crypto.getRandomValues). Undefined when storage is unavailable or refuses the write (private
 * modes, blocked storage): an id that is not kept would count every page view as a new visitor,
 * so such hits go without one and the service counts them cookieless.
 */
export function storedVisitorId(): string | undefined {
  try {
    let id = localStorage.getItem(VISITOR_STORAGE_KEY);
    if (!id || id.length > 128) {
      id = '';
      for (const byte of crypto.getRandomValues(new Uint8Array(16))) id += (byte + 256).toString(16).slice(1);
      localStorage.setItem(VISITOR_STORAGE_KEY, id);
    }
    return id;
  } catch {
    return undefined;
  }
}
