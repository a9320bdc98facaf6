import {
  customerCodeParams,
  customerDocumentParams,
  customerInput,
  customerListQuery,
  customerParams,
  customerPatch,
  customerRecord,
  relationshipInput,
  relationshipParams,
  relationshipRecord,
} from '../../shared/customers.ts';
import { dataOf, pageOf, pageQuery } from '../../shared/http.ts';
import { pageReply } from '../http/pagination.ts';
import { created, defineRoute, noContent, ok, replaceAndPatchRoutes } from '../http/route.ts';
import { andThen } from '../maybe-promise.ts';
import { createCustomer } from './create-customer.ts';
import { createRelationship } from './create-relationship.ts';
import { deleteRelationship } from './delete-relationship.ts';
import { listCustomers } from './list-customers.ts';
import { listRelationships } from './list-relationships.ts';
import { readCustomer, readCustomerBy } from './read-customer.ts';
import { updateCustomer } from './update-customer.ts';

const tag = 'Customers';
const one = { 200: { description: 'The customer.', schema: dataOf(customerRecord) } };

export const customerRoutes = [
  defineRoute({
    method: 'GET',
    path: '/customers',
    access: { permission: 'customers.read' },
    operationId: 'listCustomers',
    summary: 'List customers',
    description:
      '`search` matches name, code, email and tax id; `taxvat` is compared digits-only; `updated_since` is an ISO 8601 timestamp.',
    tag,
    query: customerListQuery,
    responses: { 200: { description: 'A page of customers.', schema: pageOf(customerRecord) } },
    async handler({ query, caller, baseUrl, db }) {
      const { rows, total } = await listCustomers(db, caller.companyId, query);
      const { page: _page, per_page: _perPage, ...filters } = query;
      return pageReply(rows, total, query, baseUrl, filters);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/customers/by-code/{code}',
    access: { permission: 'customers.read' },
    operationId: 'getCustomerByCode',
    summary: 'Find a customer by code',
    tag,
    params: customerCodeParams,
    // Integrators often use a tax id or an e-mail address as the customer's code.
    personalParams: ['code'],
    responses: one,
    async handler({ params, caller, db }) {
      return ok(await readCustomerBy(db, caller.companyId, 'code', params.code));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/customers/by-document/{document}',
    access: { permission: 'customers.read' },
    operationId: 'getCustomerByDocument',
    summary: 'Find a customer by document (tax id, digits only)',
    description: 'When several customers share the document, the oldest is returned.',
    tag,
    params: customerDocumentParams,
    personalParams: ['document'],
    responses: one,
    async handler({ params, caller, db }) {
      return ok(await readCustomerBy(db, caller.companyId, 'taxvat', params.document));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/customers/{customer}',
    access: { permission: 'customers.read' },
    operationId: 'getCustomer',
    summary: 'Get a customer',
    tag,
    params: customerParams,
    responses: one,
    handler({ params, caller, db }) {
      return andThen(readCustomer(db, caller.companyId, params.customer), ok);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/customers',
    access: { permission: 'customers.create' },
    operationId: 'createCustomer',
    summary: 'Create a customer',
    description: 'Look an existing customer up (by code or document) first, to avoid duplicates.',
    tag,
    idempotent: true,
    body: customerInput,
    responses: {
      201: {
        description: 'The customer, created.',
        schema: dataOf(customerRecord),
        headers: { Location: 'URL of the new customer.' },
      },
    },
    async handler({ body, caller, services, baseUrl, db }) {
      const customer = await createCustomer(
        services.storage,
        db,
        caller.companyId,
        body,
        services.clock.now(),
      );
      return created(customer, `${baseUrl}/${customer.id}`);
    },
  }),
  ...replaceAndPatchRoutes({
    path: '/customers/{customer}',
    access: { permission: 'customers.update' },
    tag,
    params: customerParams,
    responses: one,
    replace: {
      operationId: 'replaceCustomer',
      summary: 'Replace a customer',
      description: 'Validates like create; optional fields left out become empty.',
      body: customerInput,
    },
    patch: {
      operationId: 'updateCustomer',
      summary: 'Change some fields of a customer',
      body: customerPatch,
    },
    update: ({ params, body, caller, services, db }, mode) =>
      updateCustomer(
        services.storage,
        db,
        caller.companyId,
        params.customer,
        body,
        mode,
        services.clock.now(),
      ),
  }),
  defineRoute({
    method: 'GET',
    path: '/customers/{customer}/relationships',
    access: { permission: 'customers.read' },
    operationId: 'listCustomerRelationships',
    summary: "List a customer's parents and children",
    tag,
    params: customerParams,
    query: pageQuery,
    responses: {
      200: { description: 'A page of relationships.', schema: pageOf(relationshipRecord) },
    },
    async handler({ params, query, caller, baseUrl, db }) {
      const { rows, total } = await listRelationships(db, caller.companyId, params.customer, query);
      return pageReply(rows, total, query, baseUrl);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/customers/{customer}/relationships',
    access: { permission: 'customers.update' },
    operationId: 'createCustomerRelationship',
    summary: 'Link a customer to a parent or a child',
    description:
      '`direction` says what the related customer is to this one. Self-links, duplicates and cycles are refused with 422.',
    tag,
    idempotent: true,
    params: customerParams,
    body: relationshipInput,
    responses: {
      201: { description: 'The relationship.', schema: dataOf(relationshipRecord) },
    },
    async handler({ params, body, caller, services, baseUrl, db }) {
      const link = await createRelationship(
        services.storage,
        db,
        caller.companyId,
        params.customer,
        body,
        services.clock.now(),
      );
      return created(link, `${baseUrl}/${link.direction}/${link.related_customer_id}`);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/customers/{customer}/relationships/{direction}/{relatedCustomer}',
    access: { permission: 'customers.update' },
    operationId: 'deleteCustomerRelationship',
    summary: 'Unlink a parent or a child',
    tag,
    params: relationshipParams,
    responses: { 204: { description: 'Unlinked.' } },
    async handler({ params, caller, db }) {
      await readCustomer(db, caller.companyId, params.customer);
      await deleteRelationship(
        db,
        caller.companyId,
        params.customer,
        params.direction,
        params.relatedCustomer,
      );
      return noContent();
    },
  }),
];
