import { journey, type JourneyConfig } from './journey.js';

/**
 * The journey as a Cloudflare Worker, for workerd: POST the configuration as JSON, get the report. A module
 * worker is its default export (the runtime's contract, hence not a named one).
 */
export default {
  async fetch(request: Request): Promise<Response> {
    try {
      return Response.json(await journey((await request.json()) as JourneyConfig));
    } catch (error) {
      return new Response(error instanceof Error ? (error.stack ?? error.message) : String(error), { status: 500 });
    }
  },
};
