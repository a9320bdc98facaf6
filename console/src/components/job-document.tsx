import type { JobRecord } from '../../../shared/printing.ts';
import { useLoad } from '../load.ts';
import { previewOf } from '../preview.ts';

type Job = Pick<JobRecord, 'id' | 'content_type'>;

export function DocumentView({ job }: { job: Job }) {
  const src = `/api/v1/console/jobs/${job.id}/document`;
  if (job.content_type === 'application/pdf') {
    return <iframe class="document" title={`Document of job ${job.id}`} src={src} />;
  }
  const { data, error } = useLoad(
    () =>
      fetch(src, { credentials: 'same-origin' }).then(async (r) => {
        if (!r.ok) throw new Error(`The document cannot be shown (${r.status}).`);
        return new Uint8Array(await r.arrayBuffer());
      }),
    [job.id],
  );
  if (error) return <p>{error}</p>;
  if (!data) return <p>Loading…</p>;
  // A template job's data, before an agent claims it, is JSON: shown as text too.
  const text = job.content_type.startsWith('text/') || job.content_type.endsWith('+json');
  const shown = text
    ? new TextDecoder().decode(data.slice(0, 64 * 1024))
    : Array.from(data.slice(0, 4096), (b) => b.toString(16).padStart(2, '0'))
        .join(' ')
        .replace(/((?:\S+ ){16})/g, '$1\n');
  return (
    <section aria-label={text ? 'Document text' : 'Document bytes in hexadecimal'}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take focus to scroll by keyboard (WCAG 2.1.1). */}
      <pre class="document" tabIndex={0}>
        {shown}
      </pre>
    </section>
  );
}

/** Content types a template job can have: its data before the claim, a printer's bytes after. */
const maybeTemplate = (type: string) =>
  type === 'application/vnd.shopdesk.template-data+json' || type.startsWith('application/vnd.');

/**
 * A job made from a template, as it prints (`GET /printing/jobs/{job}/preview`, PNG: a
 * receipt, or a label's ZPL drawn by the server): the server answers 422 for a job sent as
 * bytes, which then shows nothing here; its bytes show below as the document.
 */
export function Rendering({ job }: { job: Job }) {
  const { data } = useLoad(async () => {
    if (!maybeTemplate(job.content_type)) return null;
    const response = await fetch(`/api/v1/printing/jobs/${job.id}/preview?format=png`, {
      credentials: 'same-origin',
    });
    if (!response.ok || !response.headers.get('content-type')?.startsWith('image/')) return null;
    return previewOf(response);
  }, [job.id, job.content_type]);
  if (!data) return null;
  return (
    <>
      <h2>As printed</h2>
      <img
        class="rendering"
        data-testid="job-rendering"
        src={data}
        alt={`Job ${job.id} as printed`}
      />
    </>
  );
}
