import { z } from 'zod';
import { dataOf, pageOf } from '../../shared/http.ts';
import {
  bulkPriceInput,
  bulkUpdatedRecord,
  categoryParams,
  categorySyncInput,
  categorySyncRecord,
  imageInput,
  imageRecord,
  imagesReplaceInput,
  productCodeParams,
  productImageParams,
  productInput,
  productListQuery,
  productParams,
  productPatch,
  productRecord,
  productSearchQuery,
} from '../../shared/products.ts';
import { pageReply } from '../http/pagination.ts';
import { created, defineRoute, noContent, ok, replaceAndPatchRoutes } from '../http/route.ts';
import { createImage } from './create-image.ts';
import { createProduct } from './create-product.ts';
import { deleteImage } from './delete-image.ts';
import { deleteProduct } from './delete-product.ts';
import { listProducts } from './list-products.ts';
import { readProduct } from './read-product.ts';
import { updateCategoryProducts } from './update-category.ts';
import { updateImages } from './update-images.ts';
import { updatePrices } from './update-prices.ts';
import { updateProduct } from './update-product.ts';

const tag = 'Products';
const one = { 200: { description: 'The product.', schema: dataOf(productRecord) } };
const assemblyNote =
  "An ASSEMBLY product requires `assembly: {components: [{product_id, quantity}]}` (1–100 distinct products of the company, quantities above 0 with up to 3 decimals); no product may contain itself, even through another assembly. Other types must not send it. `categories` are ids of the company's categories.";

export const productRoutes = [
  defineRoute({
    method: 'GET',
    path: '/products',
    access: { permission: 'products.read' },
    operationId: 'listProducts',
    summary: 'List products',
    description:
      '`search` matches name and code. Each product shows its stock when it manages stock.',
    tag,
    query: productListQuery,
    responses: { 200: { description: 'A page of products.', schema: pageOf(productRecord) } },
    async handler({ query, caller, baseUrl, db }) {
      const { rows, total } = await listProducts(db, caller.companyId, query);
      return pageReply(rows, total, query, baseUrl, { search: query.search });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/search/products',
    access: { permission: 'products.read' },
    operationId: 'searchProducts',
    summary: 'Search products',
    description:
      '`q` matches name and code; an exact code comes first, then names starting with `q`.',
    tag,
    query: productSearchQuery,
    responses: { 200: { description: 'A page of products.', schema: pageOf(productRecord) } },
    async handler({ query, caller, baseUrl, db }) {
      const { rows, total } = await listProducts(db, caller.companyId, query);
      return pageReply(rows, total, query, baseUrl, { q: query.q });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/products/by-code/{code}',
    access: { permission: 'products.read' },
    operationId: 'getProductByCode',
    summary: 'Find a product by code',
    tag,
    params: productCodeParams,
    responses: one,
    async handler({ params, caller, db }) {
      return ok(await readProduct(db, caller.companyId, { code: params.code }));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/products/{product}',
    access: { permission: 'products.read' },
    operationId: 'getProduct',
    summary: 'Get a product',
    tag,
    params: productParams,
    responses: one,
    async handler({ params, caller, db }) {
      return ok(await readProduct(db, caller.companyId, { id: params.product }));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/products',
    access: { permission: 'products.create' },
    operationId: 'createProduct',
    summary: 'Create a product',
    description: `The code is unique within the company. ${assemblyNote}`,
    tag,
    idempotent: true,
    body: productInput,
    responses: {
      201: {
        description: 'The product, created.',
        schema: dataOf(productRecord),
        headers: { Location: 'URL of the new product.' },
      },
    },
    async handler({ body, caller, services, baseUrl, db }) {
      const product = await createProduct(
        services.storage,
        db,
        caller.companyId,
        body,
        services.clock.now(),
      );
      return created(product, `${baseUrl}/${product.id}`);
    },
  }),
  ...replaceAndPatchRoutes({
    path: '/products/{product}',
    access: { permission: 'products.update' },
    tag,
    params: productParams,
    responses: one,
    replace: {
      operationId: 'replaceProduct',
      summary: 'Replace a product',
      description: `Validates like create; optional fields left out return to their defaults (lists become empty). ${assemblyNote}`,
      body: productInput,
    },
    patch: {
      operationId: 'updateProduct',
      summary: 'Change some fields of a product',
      description: `Lists sent (categories, images, assembly) replace the whole list. ${assemblyNote}`,
      body: productPatch,
    },
    update: ({ params, body, caller, services, db }, mode) =>
      updateProduct(
        services.storage,
        db,
        caller.companyId,
        params.product,
        body,
        mode,
        services.clock.now(),
      ),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/products/{product}',
    access: { permission: 'products.delete' },
    operationId: 'deleteProduct',
    summary: 'Delete a product',
    description:
      'Deletes its images, category links, lots, balances and stock movements. A component of an assembly is refused with 409. Offers keep their lines.',
    tag,
    params: productParams,
    responses: { 204: { description: 'Deleted.' } },
    async handler({ params, caller, services, db }) {
      await deleteProduct(services.storage, db, caller.companyId, params.product);
      return noContent();
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/products/categories/{category}/sync',
    access: { permission: 'products.update' },
    operationId: 'syncCategoryProducts',
    summary: 'Set the products of a category',
    description:
      'The category then holds exactly these products (up to 1,000; duplicates count once).',
    tag,
    idempotent: true,
    params: categoryParams,
    body: categorySyncInput,
    responses: {
      200: { description: 'The category and its products.', schema: dataOf(categorySyncRecord) },
    },
    async handler({ params, body, caller, services, db }) {
      return ok(
        await updateCategoryProducts(
          services.storage,
          db,
          caller.companyId,
          params.category,
          body.product_ids,
        ),
      );
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/products/{product}/images',
    access: { permission: 'products.update' },
    operationId: 'addProductImage',
    summary: 'Add an image to a product',
    description: 'An http(s) URL; at most 50 images a product.',
    tag,
    idempotent: true,
    params: productParams,
    body: imageInput,
    responses: {
      201: {
        description: 'The image.',
        schema: dataOf(imageRecord),
        headers: { Location: 'URL of the image.' },
      },
    },
    async handler({ params, body, caller, services, baseUrl, db }) {
      const image = await createImage(
        services.storage,
        db,
        caller.companyId,
        params.product,
        body,
        services.clock.now(),
      );
      return created(image, `${baseUrl}/${image.id}`);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/products/{product}/images/replace',
    access: { permission: 'products.update' },
    operationId: 'replaceProductImages',
    summary: 'Replace the images of a product',
    tag,
    idempotent: true,
    params: productParams,
    body: imagesReplaceInput,
    responses: { 200: { description: 'The new list.', schema: dataOf(z.array(imageRecord)) } },
    async handler({ params, body, caller, services, db }) {
      return ok(
        await updateImages(
          services.storage,
          db,
          caller.companyId,
          params.product,
          body.images,
          services.clock.now(),
        ),
      );
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/products/{product}/images/{image}',
    access: { permission: 'products.update' },
    operationId: 'deleteProductImage',
    summary: 'Delete an image of a product',
    tag,
    params: productImageParams,
    responses: { 204: { description: 'Deleted.' } },
    async handler({ params, caller, services, db }) {
      await deleteImage(
        services.storage,
        db,
        caller.companyId,
        params.product,
        params.image,
        services.clock.now(),
      );
      return noContent();
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/products/prices/bulk',
    access: { permission: 'products.price.update' },
    operationId: 'updateProductPrices',
    summary: 'Set the prices of many products',
    description:
      'Up to 1,000 items `{product_id | code, price}`. All or nothing, one transaction: an invalid item is a 422 keyed `items.N.field` and nothing changes. `updated` counts the items applied.',
    tag,
    idempotent: true,
    body: bulkPriceInput,
    responses: {
      200: { description: 'How many items were applied.', schema: dataOf(bulkUpdatedRecord) },
    },
    async handler({ body, caller, services, db }) {
      const updated = await updatePrices(
        services.storage,
        db,
        caller.companyId,
        body,
        services.clock.now(),
      );
      return ok({ updated });
    },
  }),
];
