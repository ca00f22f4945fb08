// One client address sends a benchmark's whole load: the pixel's flood limits stay on the hot path
// (every hit still takes a token) but are set so high that they never bite.
export const FLOOD_LIMITS_OFF = {
  PIXEL_RATE_PER_IP: '1000000000',
  PIXEL_BURST_PER_IP: '1000000000',
  PIXEL_RATE_PER_OWNER: '1000000000',
  PIXEL_BURST_PER_OWNER: '1000000000',
};
