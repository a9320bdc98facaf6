import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRequiredData, templateVariables } from '../../server/templates/template-variables.ts';
import { databaseKinds } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import {
  createTemplate,
  fetchBytes,
  receiptData,
  receiptSource,
  startTemplateShop,
} from './helpers.ts';

/**
 * Data that cannot print blank (docs/templates.md, "Data the template needs"): a path the
 * template reads, missing from a job's data, is a 422 naming it at `POST /printing/jobs` and
 * at a preview with data, unless the template gives it a default, reads it only under a
 * condition, or its data schema declares it without requiring it.
 */

const needs = (source: string, schema: object | null = null) =>
  Object.fromEntries(
    templateVariables('receipt', source, schema === null ? null : JSON.stringify(schema)).map(
      (variable) => [variable.path, variable.need],
    ),
  );

/** The field errors of a check, or {} when the data holds what the template needs. */
function refusals(source: string, data: Record<string, unknown>, schema: object | null = null) {
  try {
    checkRequiredData(
      templateVariables('receipt', source, schema === null ? null : JSON.stringify(schema)),
      data,
    );
    return {};
  } catch (error) {
    return (error as { errors: Record<string, string[]> }).errors;
  }
}

describe('the data a template reads', () => {
  it('finds the paths of outputs, tags and loops, elements as []', () => {
    expect(needs(receiptSource)).toEqual({
      shop: 'required',
      'order.number': 'required',
      items: 'required',
      'items[].name': 'required',
      'items[].price': 'required',
      total: 'required',
    });
  });

  it('leaves out what the template names itself: assign, capture, forloop, a range loop', () => {
    const source = [
      '{% assign sum = order.total | plus: 1 %}{{ sum }}',
      '{% capture title %}{{ shop.name }}{% endcapture %}{{ title }}',
      '{% for i in (1..count) %}{{ i }} {{ forloop.index }}{% endfor %}',
      '{% for row in rows %}{% for cell in row.cells %}{{ cell.text }}{% endfor %}{% endfor %}',
    ].join('\n');
    expect(needs(source)).toEqual({
      'order.total': 'required',
      'shop.name': 'required',
      count: 'required',
      rows: 'required',
      'rows[].cells': 'required',
      'rows[].cells[].text': 'required',
    });
  });

  it('excuses a default, a condition, a loop’s else and what the schema declares optional', () => {
    const source = [
      '{{ note | default: "-" }}',
      '{% if customer %}{{ customer.name }}{% endif %}',
      '{% unless hide_total %}{{ total }}{% endunless %}',
      '{% for item in items %}{{ item.name }}{% else %}{{ empty_text }}{% endfor %}',
      '{{ order.reference }}',
    ].join('\n');
    const schema = {
      type: 'object',
      required: ['items'],
      properties: {
        items: { type: 'array' },
        order: { type: 'object', properties: { reference: { type: 'string' } } },
      },
    };
    expect(needs(source, schema)).toEqual({
      note: 'default',
      customer: 'conditional',
      'customer.name': 'conditional',
      hide_total: 'conditional',
      total: 'conditional',
      items: 'required',
      'items[].name': 'required',
      empty_text: 'conditional',
      'order.reference': 'optional',
    });
  });

  it('names the missing path: a key, a key under an object, an element’s key', () => {
    expect(refusals(receiptSource, receiptData)).toEqual({});
    const { items: _, ...withoutItems } = receiptData;
    expect(Object.keys(refusals(receiptSource, withoutItems))).toEqual(['data.items']);
    expect(Object.keys(refusals(receiptSource, { ...receiptData, order: {} }))).toEqual([
      'data.order.number',
    ]);
    const items = [{ name: 'Tea', price: 1 }, { name: 'Cake' }];
    expect(Object.keys(refusals(receiptSource, { ...receiptData, items }))).toEqual([
      'data.items.1.price',
    ]);
    // A key holding a dot is one key.
    expect(refusals('{{ order["a.b"] }}', { order: { 'a.b': 1 } })).toEqual({});
    expect(Object.keys(refusals('{{ order["a.b"] }}', { order: { a: { b: 1 } } }))).toEqual([
      'data.order.a.b',
    ]);
    // null is a value the caller gave; an empty list has no element to lack a key.
    expect(refusals(receiptSource, { ...receiptData, shop: null, items: [] })).toEqual({});
  });

  it.each(['shop-receipt', 'delivery-note', 'shelf-label'])(
    'the worked example %s holds everything its template needs',
    (name) => {
      const source = readFileSync(`docs/templates/${name}.liquid`, 'utf8');
      const data = JSON.parse(readFileSync(`docs/templates/${name}.json`, 'utf8'));
      expect(refusals(source, data)).toEqual({});
      const { [Object.keys(data)[0]!]: _, ...short } = data;
      expect(Object.keys(refusals(source, short)).length).toBeGreaterThan(0);
    },
  );
});

describe.each(databaseKinds)('data the template needs on %s', (kind) => {
  let server: TestServer;
  let token: string;
  let receiptId: number;
  beforeAll(async () => {
    ({ server, token } = await startTemplateShop(kind, 'Blank-proof shop'));
    receiptId = (await createTemplate(server, token, { name: 'receipt' })).id;
  });
  afterAll(() => server.close());

  const postJob = (template: string, data: Record<string, unknown>) =>
    server.request('POST', '/printing/jobs', {
      token,
      body: { route: 'till', template, data },
    });
  const { items: _, ...withoutItems } = receiptData;

  it('a job whose data lacks items is a 422 naming data.items, not a receipt without lines', async () => {
    const answer = await postJob('receipt', withoutItems);
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['data.items']);
    expect(answer.body.errors['data.items'][0]).toContain('the template reads items (line 3)');
    expect((await postJob('receipt', receiptData)).status).toBe(201);
  });

  it('a misnamed key is a 422 naming the key the template reads', async () => {
    const answer = await postJob('receipt', { ...receiptData, order: { numbr: '1042' } });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['data.order.number']);
  });

  it('a default in the template, or a schema that does not require it, lets the job through', async () => {
    await createTemplate(server, token, {
      name: 'defaulted',
      source: receiptSource.replace(
        '{% for item in items %}',
        '{% assign lines = items | default: empty %}{% for item in lines %}',
      ),
    });
    expect((await postJob('defaulted', withoutItems)).status).toBe(201);
    const optional = await createTemplate(server, token, {
      name: 'optional-items',
      data_schema: {
        type: 'object',
        required: ['order'],
        properties: { order: { type: 'object' }, items: { type: 'array' } },
      },
    });
    expect(optional.variables).toContainEqual({ path: 'items', line: 3, need: 'optional' });
    expect((await postJob('optional-items', withoutItems)).status).toBe(201);
    // What the schema does not declare is still needed.
    const { shop: __, ...withoutShop } = receiptData;
    expect(Object.keys((await postJob('optional-items', withoutShop)).body.errors)).toEqual([
      'data.shop',
    ]);
  });

  it('a preview with data gives the same 422; a template and its versions list the variables', async () => {
    const path = `/printing/templates/${receiptId}/preview`;
    const preview = await server.request('POST', path, {
      token,
      body: { format: 'text', data: withoutItems },
    });
    expect(preview.status).toBe(422);
    const job = await postJob('receipt', withoutItems);
    expect(preview.body.errors).toEqual(job.body.errors);
    // A draft is checked against what the draft reads.
    const draft = await fetchBytes(server, 'POST', path, token, {
      format: 'text',
      data: withoutItems,
      source: '{{ shop }} {{ total }}',
    });
    expect(draft.status).toBe(200);

    const read = await server.request('GET', `/printing/templates/${receiptId}`, { token });
    expect(read.body.data.variables).toContainEqual({
      path: 'items[].name',
      line: 3,
      need: 'required',
    });
    const version = await server.request('GET', `/printing/templates/${receiptId}/versions/1`, {
      token,
    });
    expect(version.body.data.variables).toEqual(read.body.data.variables);
  });
});
