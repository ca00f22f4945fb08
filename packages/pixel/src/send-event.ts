export type Transport = 'beacon' | 'image';

// an image nobody references may be collected before its request is made; hold each one
// until it has loaded or failed
const inFlight: HTMLImageElement[] = [];

/**
 * Hands one event to the browser: `navigator.sendBeacon` (a POST with a form body, which is
 * CORS-safelisted, so no preflight, and survives the page unloading), else a GET through an
 * image. False when neither is available or the browser refused the request.
 */
export function sendEvent(endpoint: string, query: string, transport: Transport | undefined): boolean {
  if (transport !== 'image' && typeof navigator !== 'undefined' && typeof navigator.sendBeacon === 'function') {
    // false means the browser's beacon queue is full: the image below still gets the event out
    if (navigator.sendBeacon(endpoint, new URLSearchParams(query))) return true;
  }
  if (typeof Image === 'undefined') return false;
  const image = new Image(1, 1);
  inFlight.push(image);
  image.onload = image.onerror = () => {
    inFlight.splice(inFlight.indexOf(image), 1);
  };
  image.src = `${endpoint}?${query}`;
  return true;
}
