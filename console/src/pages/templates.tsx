import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, can, type Page, type Session } from '../api.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { usePageTitle } from '../components/page-title.ts';
import { useLoad } from '../load.ts';
import { navigate, onLinkClick } from '../router.ts';
import { when } from '../words.ts';

interface Template {
  id: number;
  name: string;
  kind: 'receipt' | 'label';
  version: number;
  source: string;
  data_schema: Record<string, unknown> | null;
  sample_data: Record<string, unknown> | null;
  variables: Variable[];
  updated_at: string;
}

/** A path of the data the saved template reads (docs/templates.md, "Data the template needs"). */
interface Variable {
  path: string;
  line: number;
  need: 'required' | 'default' | 'conditional' | 'optional';
}

const needWords: Record<Variable['need'], string> = {
  required: 'required',
  default: 'may be left out: the template gives a default',
  conditional: 'may be left out: read only under a condition',
  optional: 'may be left out: the data schema does not require it',
};

/** The data schema as the editor shows it: empty for none. */
const schemaText = (schema: Template['data_schema']) =>
  schema === null ? '' : JSON.stringify(schema, null, 2);

const kindWords: Record<Template['kind'], string> = {
  receipt: 'Receipt (ReceiptLine)',
  label: 'Label (ZPL)',
};

/** The printers a preview is drawn for, named as the tray app names them. */
const printers = [
  {
    key: 'escpos-80',
    label: 'Receipt 80 mm, ESC/POS',
    profile: { language: 'escpos', width_mm: 80 },
  },
  {
    key: 'escpos-58',
    label: 'Receipt 58 mm, ESC/POS',
    profile: { language: 'escpos', width_mm: 58 },
  },
  { key: 'star-80', label: 'Receipt 80 mm, Star', profile: { language: 'starprnt', width_mm: 80 } },
  { key: 'pdf-a4', label: 'Office printer, A4 PDF', profile: { language: 'pdf', width_mm: 'a4' } },
  { key: 'zpl-50', label: 'Label 50 mm, ZPL', profile: { language: 'zpl', width_mm: 50 } },
] as const;

/** What a new template starts with, so the preview shows something at once. */
const starters: Record<Template['kind'], { source: string; sample: Record<string, unknown> }> = {
  receipt: {
    source:
      '^^{{ shop }}\nOrder | {{ order.number }}\n-\n{% for item in items %}{{ item.name }} | {{ item.price | money }}\n{% endfor %}-\n"Total | {{ total | money: "EUR" }}\n=',
    sample: {
      shop: 'Demo Shop',
      order: { number: '1001' },
      items: [{ name: 'Coffee', price: 2.5 }],
      total: 2.5,
    },
  },
  label: {
    source: '^XA\n^FO20,20^A0N,30,30^FD{{ name }}^FS\n^XZ',
    sample: { name: 'Shelf label' },
  },
};

const messageOf = (failure: unknown) =>
  failure instanceof ApiError
    ? [failure.message, ...Object.values(failure.errors ?? {}).flat()]
        .filter((line, index, all) => all.indexOf(line) === index)
        .join(' ')
    : String(failure);

/** `/console/templates` (the list) and `/console/templates/{id}` (the editor). */
export function TemplatesPage({ session, id }: { session: Session; id: number | undefined }) {
  usePageTitle('Templates');
  return id ? <TemplateEditor id={id} session={session} /> : <TemplateList session={session} />;
}

function TemplateList({ session }: { session: Session }) {
  const page = Number(new URLSearchParams(location.search).get('page') ?? '1');
  const { data, error } = useLoad(
    () => api<Page<Template>>('GET', `/printing/templates?per_page=25&page=${page}`),
    [page],
  );
  const [message, setMessage] = useState('');
  const create = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const kind = String(form.get('kind')) as Template['kind'];
    setMessage('');
    try {
      const answer = await api<{ data: Template }>('POST', '/printing/templates', {
        name: String(form.get('name') ?? '').trim(),
        kind,
        source: starters[kind].source,
        sample_data: starters[kind].sample,
      });
      navigate(`/console/templates/${answer.data.id}`);
    } catch (failure) {
      setMessage(messageOf(failure));
    }
  };
  return (
    <>
      <h1>Templates</h1>
      <p>
        A template turns your shop system's data into a receipt or a label, drawn for each printer
        that prints it.
      </p>
      {error && <p role="alert">{error}</p>}
      {data && data.data.length === 0 && (
        <EmptyState title="No template yet.">
          <p>
            A template lays out a receipt or a label once; your shop software then sends only the
            data. Make one under New template below.
          </p>
        </EmptyState>
      )}
      {data && data.data.length > 0 && (
        <>
          <table class="list">
            <caption>{data.meta.total} templates, by name</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Version</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((template) => (
                <tr key={template.id} data-template={template.name}>
                  <td data-label="Name">
                    <a href={`/console/templates/${template.id}`} onClick={onLinkClick}>
                      {template.name}
                    </a>
                  </td>
                  <td data-label="Kind">{kindWords[template.kind]}</td>
                  <td data-label="Version">{template.version}</td>
                  <td data-label="Updated">{when(template.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {data.meta.last_page > 1 && (
            <nav aria-label="Pages" class="pages">
              {page > 1 && (
                <a href={`/console/templates?page=${page - 1}`} onClick={onLinkClick}>
                  Previous
                </a>
              )}
              <span>
                Page {data.meta.current_page} of {data.meta.last_page}
              </span>
              {page < data.meta.last_page && (
                <a href={`/console/templates?page=${page + 1}`} onClick={onLinkClick}>
                  Next
                </a>
              )}
            </nav>
          )}
        </>
      )}
      {can(session, 'printing.templates.write') && (
        <>
          <h2>New template</h2>
          <form onSubmit={create} class="filters">
            <label>
              Name
              <input
                name="name"
                required
                maxLength={64}
                pattern="[a-z0-9._\-]{1,64}"
                title="Lower-case letters, digits, dot, underscore or dash"
              />
            </label>
            <label>
              Kind
              <select name="kind">
                <option value="receipt">{kindWords.receipt}</option>
                <option value="label">{kindWords.label}</option>
              </select>
            </label>
            <button type="submit">Create template</button>
          </form>
          <p role="status">{message}</p>
        </>
      )}
    </>
  );
}

/** Reads a preview (a PNG) into what the page shows: a data: address (CSP). */
async function previewOf(response: Response): Promise<string> {
  const blob = await response.blob();
  return new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

/** An error answer of the API (JSON), as an ApiError. */
async function failureOf(response: Response): Promise<ApiError> {
  const answer = await response.json().catch(() => ({}));
  return new ApiError(response.status, answer.message ?? `Error ${response.status}`, answer.errors);
}

function TemplateEditor({ id, session }: { id: number; session: Session }) {
  const { data: template, error } = useLoad(
    () => api<{ data: Template }>('GET', `/printing/templates/${id}`).then((a) => a.data),
    [id],
  );
  if (error) return <p role="alert">{error}</p>;
  if (!template) return <p>Loading…</p>;
  return (
    <Editor
      key={template.id}
      template={template}
      writer={can(session, 'printing.templates.write')}
    />
  );
}

function Editor({ template, writer }: { template: Template; writer: boolean }) {
  const [saved, setSaved] = useState(template);
  const [source, setSource] = useState(template.source);
  const [sample, setSample] = useState(JSON.stringify(template.sample_data ?? {}, null, 2));
  const [schema, setSchema] = useState(schemaText(template.data_schema));
  const [printer, setPrinter] = useState<string>(
    template.kind === 'label' ? 'zpl-50' : 'escpos-80',
  );
  const [preview, setPreview] = useState<string | null>(null);
  const [problem, setProblem] = useState('');
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const serial = useRef(0);

  // The preview follows the source, the data and the printer, 400 ms after the last keystroke.
  useEffect(() => {
    const mine = ++serial.current;
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      let data: unknown;
      try {
        data = JSON.parse(sample);
      } catch (failure) {
        setProblem(`The sample data is not valid JSON: ${(failure as Error).message}`);
        return;
      }
      if (data === null || typeof data !== 'object' || Array.isArray(data)) {
        setProblem('The sample data must be a JSON object: { … }.');
        return;
      }
      const chosen = printers.find((p) => p.key === printer) ?? printers[0];
      setBusy(true);
      try {
        const response = await fetch(`/api/v1/printing/templates/${template.id}/preview`, {
          method: 'POST',
          credentials: 'same-origin',
          signal: controller.signal,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            // A label's ZPL drawn by the server, as a receipt is: both are pictures.
            format: 'png',
            profile: chosen.profile,
            data,
            ...(writer && source !== saved.source && { source }),
          }),
        });
        if (!response.ok) throw await failureOf(response);
        const shown = await previewOf(response);
        if (mine !== serial.current) return;
        setPreview(shown);
        setProblem('');
      } catch (failure) {
        if (controller.signal.aborted || mine !== serial.current) return;
        setProblem(messageOf(failure));
      } finally {
        if (mine === serial.current) setBusy(false);
      }
    }, 400);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [source, sample, printer, saved.source]);

  const save = async (event: Event) => {
    event.preventDefault();
    setMessage('');
    let sampleData: Record<string, unknown>;
    try {
      sampleData = JSON.parse(sample);
    } catch {
      setMessage('Not saved: the sample data is not valid JSON.');
      return;
    }
    let dataSchema: Record<string, unknown> | null = null;
    if (schema.trim() !== '') {
      try {
        dataSchema = JSON.parse(schema);
      } catch {
        setMessage('Not saved: the data schema is not valid JSON.');
        return;
      }
    }
    try {
      const answer = await api<{ data: Template }>('PATCH', `/printing/templates/${template.id}`, {
        source,
        sample_data: sampleData,
        data_schema: dataSchema,
      });
      setSaved(answer.data);
      setMessage(`Saved as version ${answer.data.version}.`);
    } catch (failure) {
      setMessage(`Not saved. ${messageOf(failure)}`);
    }
  };

  const chosen = printers.find((p) => p.key === printer) ?? printers[0];
  const changed = source !== saved.source || schema !== schemaText(saved.data_schema);
  return (
    <>
      <h1>Template {saved.name}</h1>
      <p>
        <a href="/console/templates" onClick={onLinkClick}>
          All templates
        </a>
      </p>
      <p>
        {kindWords[saved.kind]}, version {saved.version}, updated {when(saved.updated_at)}
        {changed && ' (changes not saved)'}
      </p>
      <form class="editor" onSubmit={save} aria-label={`Edit template ${saved.name}`}>
        <div class="source">
          <label for="template-source">Source</label>
          <textarea
            id="template-source"
            spellcheck={false}
            rows={20}
            readOnly={!writer}
            value={source}
            onInput={(event) => setSource(event.currentTarget.value)}
          />
          <h2>Try with sample data</h2>
          <label for="template-sample">Sample data (JSON)</label>
          <textarea
            id="template-sample"
            spellcheck={false}
            rows={8}
            value={sample}
            onInput={(event) => setSample(event.currentTarget.value)}
          />
          <label for="template-schema">Data schema (JSON Schema; empty for none)</label>
          <textarea
            id="template-schema"
            spellcheck={false}
            rows={8}
            readOnly={!writer}
            aria-describedby="template-schema-help"
            value={schema}
            onInput={(event) => setSchema(event.currentTarget.value)}
          />
          <p id="template-schema-help">
            Every job's data must match it. A key it declares under <code>properties</code> but does
            not list in <code>required</code> may be left out of a job's data.
          </p>
          {writer && (
            <p>
              <button type="submit">Save</button> Saving makes a new version; jobs already queued
              keep theirs.
            </p>
          )}
          <p role="status" data-testid="save-status">
            {message}
          </p>
        </div>
        <section class="preview" aria-label="Preview">
          <label>
            Printer
            <select value={printer} onChange={(event) => setPrinter(event.currentTarget.value)}>
              {printers
                .filter((p) => template.kind === 'receipt' || p.profile.language === 'zpl')
                .map((p) => (
                  <option key={p.key} value={p.key}>
                    {p.label}
                  </option>
                ))}
            </select>
          </label>
          <p role="alert" data-testid="template-problem" class="problem">
            {problem}
          </p>
          <p class="visually-hidden" aria-live="polite">
            {busy ? 'Updating the preview' : ''}
          </p>
          {preview && (
            <img
              data-testid="template-preview"
              src={preview}
              alt={`Preview of ${saved.name} on a ${chosen.label} printer`}
            />
          )}
        </section>
        <section class="variables" aria-labelledby="template-variables">
          <h2 id="template-variables">Data the template reads</h2>
          <p>
            As saved (version {saved.version}). A job whose data lacks a required one is refused
            with its name, rather than printed blank.
          </p>
          {saved.variables.length === 0 ? (
            <p>None: this template prints the same whatever the data.</p>
          ) : (
            <ul data-testid="template-variables">
              {saved.variables.map((variable) => (
                <li key={variable.path} data-need={variable.need}>
                  <code>{variable.path}</code> (line {variable.line}): {needWords[variable.need]}
                </li>
              ))}
            </ul>
          )}
        </section>
      </form>
    </>
  );
}
