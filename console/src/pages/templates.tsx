import { useState } from 'preact/hooks';
import { ColumnHeads } from '../../../ui/column-heads.tsx';
import { api, can, type Page, type Session } from '../api.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { usePageTitle } from '../components/page-title.ts';
import { useLoad } from '../load.ts';
import { navigate, onLinkClick } from '../router.ts';
import { count, when } from '../words.ts';
import { TemplateEditor } from './template-editor.tsx';
import { kindWords, messageOf, type Template } from './template-words.ts';

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
          <TemplateTable templates={data.data} total={data.meta.total} />
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
      {can(session, 'printing.templates.write') && <NewTemplateForm />}
    </>
  );
}

/** Makes a template of a kind from its starter, then opens it in the editor. */
function NewTemplateForm() {
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
  );
}

function TemplateTable({ templates, total }: { templates: Template[]; total: number }) {
  return (
    <table class="list">
      <caption>{count(total, 'template')}, by name</caption>
      <ColumnHeads names={['Name', 'Kind', 'Version', 'Updated']} />
      <tbody>
        {templates.map((template) => (
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
  );
}
