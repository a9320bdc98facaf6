/**
 * The head of a list table: one column heading per name, and, where rows carry buttons, a
 * last column named "Actions" for screen readers only (its buttons say what they do).
 */
export function ColumnHeads(props: { names: string[]; actions?: boolean; actionsClass?: string }) {
  return (
    <thead>
      <tr>
        {props.names.map((name) => (
          <th key={name} scope="col">
            {name}
          </th>
        ))}
        {props.actions && (
          <th scope="col" class={props.actionsClass}>
            <span class="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
