import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, can, type Session } from '../api.ts';
import { useLoad } from '../load.ts';
import { previewOf } from '../preview.ts';
import { onLinkClick } from '../router.ts';
import { when } from '../words.ts';
import {
  kindWords,
  messageOf,
  needWords,
  printers,
  schemaText,
  type Template,
} from './template-words.ts';

/** An error answer of the API (JSON), as an ApiError. */
async function failureOf(response: Response): Promise<ApiError> {
  const answer = await response.json().catch(() => ({}));
  return new ApiError(response.status, answer.message ?? `Error ${response.status}`, answer.errors);
}

/** `/console/templates/{id}`: the template's editor, read-only without the permission. */
export function TemplateEditor({ id, session }: { id: number; session: Session }) {
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

/** The sample data as an object, or what is wrong with it. */
function parsedSample(sample: string): { data: Record<string, unknown> } | { problem: string } {
  let data: unknown;
  try {
    data = JSON.parse(sample);
  } catch (failure) {
    return { problem: `The sample data is not valid JSON: ${(failure as Error).message}` };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { problem: 'The sample data must be a JSON object: { … }.' };
  }
  return { data: data as Record<string, unknown> };
}

interface Draft {
  template: Template;
  saved: Template;
  source: string;
  sample: string;
  printer: string;
  writer: boolean;
}

/**
 * The preview follows the source, the data and the printer, 400 ms after the last keystroke
 * (`POST /printing/templates/{id}/preview`; the draft source only when it differs from the
 * saved one and the person may write). A later keystroke cancels an answer still on its way.
 */
function usePreview({ template, saved, source, sample, printer, writer }: Draft) {
  const [preview, setPreview] = useState<string | null>(null);
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const serial = useRef(0);
  useEffect(() => {
    const mine = ++serial.current;
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      const parsed = parsedSample(sample);
      if ('problem' in parsed) {
        setProblem(parsed.problem);
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
            data: parsed.data,
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
  return { preview, problem, busy };
}

/** Saves a new version (`PATCH`); the answer, or why it was not saved. */
async function saveTemplate(
  id: number,
  fields: { source: string; sample: string; schema: string },
): Promise<{ saved: Template } | { message: string }> {
  let sampleData: Record<string, unknown>;
  try {
    sampleData = JSON.parse(fields.sample);
  } catch {
    return { message: 'Not saved: the sample data is not valid JSON.' };
  }
  let dataSchema: Record<string, unknown> | null = null;
  if (fields.schema.trim() !== '') {
    try {
      dataSchema = JSON.parse(fields.schema);
    } catch {
      return { message: 'Not saved: the data schema is not valid JSON.' };
    }
  }
  try {
    const answer = await api<{ data: Template }>('PATCH', `/printing/templates/${id}`, {
      source: fields.source,
      sample_data: sampleData,
      data_schema: dataSchema,
    });
    return { saved: answer.data };
  } catch (failure) {
    return { message: `Not saved. ${messageOf(failure)}` };
  }
}

function Editor({ template, writer }: { template: Template; writer: boolean }) {
  const [saved, setSaved] = useState(template);
  const [source, setSource] = useState(template.source);
  const [sample, setSample] = useState(JSON.stringify(template.sample_data ?? {}, null, 2));
  const [schema, setSchema] = useState(schemaText(template.data_schema));
  const [printer, setPrinter] = useState<string>(
    template.kind === 'label' ? 'zpl-50' : 'escpos-80',
  );
  const [message, setMessage] = useState('');
  const shown = usePreview({ template, saved, source, sample, printer, writer });
  const save = async (event: Event) => {
    event.preventDefault();
    setMessage('');
    const answer = await saveTemplate(template.id, { source, sample, schema });
    if ('message' in answer) return setMessage(answer.message);
    setSaved(answer.saved);
    setMessage(`Saved as version ${answer.saved.version}.`);
  };
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
          <SourceFields
            writer={writer}
            fields={{ source, sample, schema }}
            set={{ source: setSource, sample: setSample, schema: setSchema }}
          />
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
        <PreviewPane
          template={template}
          name={saved.name}
          printer={printer}
          onPrinter={setPrinter}
          {...shown}
        />
        <VariablesList saved={saved} />
      </form>
    </>
  );
}

type Fields = { source: string; sample: string; schema: string };

/** The source, the sample data and the data schema, as text. */
function SourceFields(props: {
  writer: boolean;
  fields: Fields;
  set: { [K in keyof Fields]: (value: string) => void };
}) {
  const { writer, fields, set } = props;
  return (
    <>
      <label for="template-source">Source</label>
      <textarea
        id="template-source"
        spellcheck={false}
        rows={20}
        readOnly={!writer}
        value={fields.source}
        onInput={(event) => set.source(event.currentTarget.value)}
      />
      <h2>Try with sample data</h2>
      <label for="template-sample">Sample data (JSON)</label>
      <textarea
        id="template-sample"
        spellcheck={false}
        rows={8}
        value={fields.sample}
        onInput={(event) => set.sample(event.currentTarget.value)}
      />
      <label for="template-schema">Data schema (JSON Schema; empty for none)</label>
      <textarea
        id="template-schema"
        spellcheck={false}
        rows={8}
        readOnly={!writer}
        aria-describedby="template-schema-help"
        value={fields.schema}
        onInput={(event) => set.schema(event.currentTarget.value)}
      />
      <p id="template-schema-help">
        Every job's data must match it. A key it declares under <code>properties</code> but does not
        list in <code>required</code> may be left out of a job's data.
      </p>
    </>
  );
}

/** The printer to draw for, what is wrong, and the picture. */
function PreviewPane(props: {
  template: Template;
  name: string;
  printer: string;
  onPrinter: (key: string) => void;
  preview: string | null;
  problem: string;
  busy: boolean;
}) {
  const chosen = printers.find((p) => p.key === props.printer) ?? printers[0];
  return (
    <section class="preview" aria-label="Preview">
      <label>
        Printer
        <select
          value={props.printer}
          onChange={(event) => props.onPrinter(event.currentTarget.value)}
        >
          {printers
            .filter((p) => props.template.kind === 'receipt' || p.profile.language === 'zpl')
            .map((p) => (
              <option key={p.key} value={p.key}>
                {p.label}
              </option>
            ))}
        </select>
      </label>
      <p role="alert" data-testid="template-problem" class="problem">
        {props.problem}
      </p>
      <p class="visually-hidden" aria-live="polite">
        {props.busy ? 'Updating the preview' : ''}
      </p>
      {props.preview && (
        <img
          data-testid="template-preview"
          src={props.preview}
          alt={`Preview of ${props.name} on a ${chosen.label} printer`}
        />
      )}
    </section>
  );
}

/** Each path of the data the saved version reads, and whether a job must send it. */
function VariablesList({ saved }: { saved: Template }) {
  return (
    <section class="variables" aria-labelledby="template-variables">
      <h2 id="template-variables">Data the template reads</h2>
      <p>
        As saved (version {saved.version}). A job whose data lacks a required one is refused with
        its name, rather than printed blank.
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
  );
}
