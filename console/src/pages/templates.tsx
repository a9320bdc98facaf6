import { ApiError, api } from '../api.ts';
import { useLoad } from '../load.ts';

interface Template {
  id: number;
  name: string;
}

/**
 * Templates come with the server's templates module (`GET /printing/templates`). Until the
 * server has it (404), the page says so; the list and the editor with its live preview
 * (`POST /printing/templates/{id}/preview`) go where the list is rendered below.
 */
export function TemplatesPage() {
  const { data, error } = useLoad(
    () =>
      api<{ data: Template[] }>('GET', '/printing/templates').then(
        (answer) => answer.data,
        (failure: unknown) => {
          if (failure instanceof ApiError && failure.status === 404) return null;
          throw failure;
        },
      ),
    [],
  );
  return (
    <>
      <h1>Templates</h1>
      {error && <p role="alert">{error}</p>}
      {data === null && (
        <p data-testid="templates-unavailable">
          Templates are not available on this server yet. Jobs are printed from the documents your
          shop system sends.
        </p>
      )}
      {data && (
        <ul>
          {data.map((template) => (
            <li key={template.id}>{template.name}</li>
          ))}
        </ul>
      )}
    </>
  );
}
