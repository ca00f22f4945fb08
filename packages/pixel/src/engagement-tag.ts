import { trackEngagement } from './pixel';

// Entry of the opt-in <script> build dist/pixel-engagement.min.js, loaded after pixel.min.js by
// pages that measure attention: it adds trackEngagement to the snippet's one global instead of
// making a second global. Without the snippet (blocked, not loaded yet) it does nothing.
const lib = (window as unknown as { CampaignEventsPixel?: { trackEngagement?: unknown } }).CampaignEventsPixel;
if (lib) lib.trackEngagement = trackEngagement;
