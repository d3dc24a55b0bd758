import { journey } from './journey.js';

/** The journey in a browser page: the test calls `window.runJourney(config)` through the DevTools protocol. */
(globalThis as unknown as { runJourney: typeof journey }).runJourney = journey;
