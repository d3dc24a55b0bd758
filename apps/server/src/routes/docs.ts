import { type contract, isProblemKind, problemKinds, problemTypeUri, type ProblemKind } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { HttpProblem } from '../kernel/http-problem.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** `code` spans for backticks, nothing else: the descriptions are ours, but escape them all the same. */
function inlineMarkup(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

const pageStyle = `body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
code,pre{font-family:ui-monospace,monospace;background:#f3f3f3;border-radius:4px}code{padding:0 .25em}pre{padding:1rem;overflow:auto}
a{color:#0b57d0}`;

function problemPage(publicUrl: string, kind: ProblemKind): string {
  const { status, title, description } = problemKinds[kind];
  const example = {
    type: problemTypeUri(publicUrl, kind),
    title,
    status,
    detail: '…what went wrong with this request…',
    instance: 'urn:uuid:6f1c1a8e-2b1e-4a7c-9d0e-3f5b2c8d9e10',
  };
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Releases API problems</title><style>${pageStyle}</style></head><body>
<p><a href="/docs">Releases API reference</a></p>
<h1>${escapeHtml(title)}</h1>
<p>HTTP status <strong>${status}</strong> · problem type <code>${escapeHtml(kind)}</code></p>
<p>${inlineMarkup(description)}</p>
<h2>Example body</h2>
<pre>${escapeHtml(JSON.stringify(example, null, 2))}</pre>
<p>Every error of this API is an <a href="https://www.rfc-editor.org/rfc/rfc9457">RFC 9457</a> problem document served as <code>application/problem+json</code>.</p>
</body></html>`;
}

function referencePage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Releases API reference</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/assets/init.js"></script></body></html>`;
}

export function docsRoutes(deps: { publicUrl: string }): {
  reference: AppRouteImplementation<typeof contract.docs.reference>;
  problem: AppRouteImplementation<typeof contract.docs.problem>;
} {
  const reference = referencePage();
  const pages = new Map(
    (Object.keys(problemKinds) as ProblemKind[]).map((kind) => [kind, problemPage(deps.publicUrl, kind)]),
  );
  return {
    reference: async () => ({ status: 200, body: reference }),
    problem: async ({ params }) => {
      if (!isProblemKind(params.kind)) {
        throw new HttpProblem('not-found', `There is no problem type called "${params.kind}".`);
      }
      return { status: 200, body: pages.get(params.kind)! };
    },
  };
}
