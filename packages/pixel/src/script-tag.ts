import { createTracker } from './pixel';

// Entry of the <script> build (dist/pixel.min.js): its one global. Assigned by hand rather than
// through esbuild's globalName, whose module-namespace helpers cost a fifth of the gzip budget.
(window as unknown as { CampaignEventsPixel: unknown }).CampaignEventsPixel = { createTracker };
