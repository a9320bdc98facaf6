import { type Selectable, sql, type Transaction } from 'kysely';
import { fromCents, toCents } from '../../shared/money.ts';
import {
  type AssemblyInput,
  type ImageInput,
  type ImageRecord,
  maxImagesPerProduct,
  type ProductInput,
  type ProductListQuery,
  type ProductPatch,
  type ProductRecord,
  type ProductType,
} from '../../shared/products.ts';
import { fromMilli, toMilli } from '../../shared/quantity.ts';
import { Conflict, FieldErrors, invalidField, NotFound } from '../domain-errors.ts';
import { balancesOf, stockOf } from '../stock/balances.ts';
import { onUniqueViolation, type Storage } from '../storage/database.ts';
import type { Db, Dialect } from '../storage/db.ts';
import { offsetOf } from '../storage/pages.ts';
import type { Database } from '../storage/schema.ts';
import type { ProductTables } from '../storage/tables/products.ts';
import { isoNow } from '../time.ts';

type ProductRow = Selectable<ProductTables['products']>;

const codeTaken = () => invalidField('code', 'The code has already been taken.');
/** The unique index settles races that `assertCodeFree` cannot see (concurrent writers). */
const codeRaceAsTaken = onUniqueViolation('products', ['company_id', 'code'], codeTaken);

function groupBy<T, K>(rows: T[], keyOf: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

/** Rows to records: categories, images, components and stock in one query each. */
export async function toRecords(
  db: Db,
  companyId: number,
  rows: ProductRow[],
): Promise<ProductRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [categories, images, components, balances] = await Promise.all([
    db
      .selectFrom('product_categories')
      .select(['product_id', 'category_id'])
      .where('product_id', 'in', ids)
      .orderBy('category_id')
      .execute(),
    db
      .selectFrom('product_images')
      .selectAll()
      .where('product_id', 'in', ids)
      .orderBy('product_id')
      .orderBy('position')
      .execute(),
    db
      .selectFrom('product_components as pc')
      .innerJoin('products as p', 'p.id', 'pc.component_id')
      .select(['pc.assembly_id', 'pc.component_id', 'pc.quantity_milli', 'p.code', 'p.name'])
      .where('pc.assembly_id', 'in', ids)
      .orderBy('pc.assembly_id')
      .orderBy('pc.position')
      .execute(),
    balancesOf(
      db,
      companyId,
      rows.filter((row) => Boolean(row.manage_stock)).map((row) => row.id),
    ),
  ]);
  const categoriesOf = groupBy(categories, (c) => c.product_id);
  const imagesOf = groupBy(images, (i) => i.product_id);
  const componentsOf = groupBy(components, (c) => c.assembly_id);
  return rows.map((row) => ({
    id: row.id,
    code: row.code,
    name: row.name,
    type: row.type,
    condition: row.condition,
    unit: row.unit,
    price: fromCents(Number(row.price_cents)),
    ncm: row.ncm,
    manage_stock: Boolean(row.manage_stock),
    categories: (categoriesOf.get(row.id) ?? []).map((c) => c.category_id),
    images: (imagesOf.get(row.id) ?? []).map(imageRecordOf),
    assembly:
      row.type === 'ASSEMBLY'
        ? {
            components: (componentsOf.get(row.id) ?? []).map((c) => ({
              product_id: c.component_id,
              code: c.code,
              name: c.name,
              quantity: fromMilli(Number(c.quantity_milli)),
            })),
          }
        : null,
    stock: row.manage_stock ? stockOf(balances.get(row.id) ?? []) : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }));
}

function imageRecordOf(row: Selectable<ProductTables['product_images']>): ImageRecord {
  return { id: row.id, url: row.url, alt_text: row.alt_text, position: row.position };
}

export async function findProductRow(
  db: Db,
  companyId: number,
  by: { id: number } | { code: string },
): Promise<ProductRow | undefined> {
  let query = db.selectFrom('products').selectAll().where('company_id', '=', companyId);
  query = 'id' in by ? query.where('id', '=', by.id) : query.where('code', '=', by.code);
  return query.executeTakeFirst();
}

export async function getProductRow(
  db: Db,
  companyId: number,
  by: { id: number } | { code: string },
): Promise<ProductRow> {
  const row = await findProductRow(db, companyId, by);
  if (!row) throw new NotFound('Product');
  return row;
}

/**
 * The product row, locked on PostgreSQL until the transaction ends (SQLite runs one writer
 * at a time anyway): writes to one product's lists (categories, images, components), which
 * delete and re-insert rows, then run one after another instead of colliding on a key.
 * `FOR NO KEY UPDATE`, not `FOR UPDATE`: inserting a row that references the product (a
 * balance, a link) takes a key-share lock on it, which `FOR UPDATE` would block, and two
 * such waits across transactions make a deadlock.
 */
export async function lockProductRow(
  trx: Transaction<Database>,
  dialect: Dialect,
  companyId: number,
  id: number,
  /** `delete`: the strongest lock, taken first, for the delete to come (see `deleteProduct`). */
  purpose: 'change' | 'delete' = 'change',
): Promise<ProductRow> {
  let query = trx
    .selectFrom('products')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id);
  if (dialect === 'postgres') {
    query = purpose === 'delete' ? query.forUpdate() : query.forNoKeyUpdate();
  }
  const row = await query.executeTakeFirst();
  if (!row) throw new NotFound('Product');
  return row;
}

export async function getProduct(
  db: Db,
  companyId: number,
  by: { id: number } | { code: string },
): Promise<ProductRecord> {
  const row = await getProductRow(db, companyId, by);
  return (await toRecords(db, companyId, [row]))[0]!;
}

/**
 * The list (`search` on name and code, by id) and the search (`q`, exact code first, then
 * names that start with it, then the rest).
 */
export async function listProducts(
  storage: Storage,
  companyId: number,
  query: ProductListQuery & { q?: string },
): Promise<{ rows: ProductRecord[]; total: number }> {
  const term = query.q ?? query.search;
  let base = storage.db.selectFrom('products').where('company_id', '=', companyId);
  if (term) {
    const pattern = `%${term}%`;
    const like = storage.like;
    base = base.where((eb) => eb.or([eb('name', like, pattern), eb('code', like, pattern)]));
  }
  const counted = await base
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  let ordered = base.selectAll();
  if (query.q) {
    const like = sql.raw(storage.like);
    ordered = ordered.orderBy(
      sql`case when code = ${query.q} then 0 when name ${like} ${`${query.q}%`} then 1 else 2 end`,
    );
  }
  const rows = await ordered.orderBy('id').limit(query.per_page).offset(offsetOf(query)).execute();
  return { rows: await toRecords(storage.db, companyId, rows), total: Number(counted.total) };
}

async function assertCodeFree(db: Db, companyId: number, code: string, exceptId?: number) {
  let query = db
    .selectFrom('products')
    .select('id')
    .where('company_id', '=', companyId)
    .where('code', '=', code);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  if (await query.executeTakeFirst()) throw codeTaken();
}

async function assertCategoriesExist(db: Db, companyId: number, ids: number[]) {
  if (ids.length === 0) return;
  const found = await db
    .selectFrom('categories')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
  const errors = new FieldErrors();
  errors.unknownIds(ids, new Set(found.map((row) => row.id)), (index) => `categories.${index}`);
  errors.throwIfAny();
}

/**
 * Components must be products of the company, and no product may contain itself, even
 * through another assembly: walks down from the components and refuses when it meets
 * `selfId`.
 */
async function assertComponentsValid(
  db: Db,
  companyId: number,
  selfId: number | undefined,
  assembly: AssemblyInput,
) {
  const ids = assembly.components.map((c) => c.product_id);
  const found = await db
    .selectFrom('products')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
  const errors = new FieldErrors();
  const key = (index: number) => `assembly.components.${index}.product_id`;
  errors.unknownIds(ids, new Set(found.map((row) => row.id)), key);
  errors.throwIfAny();
  if (selfId === undefined) return; // a new product is nobody's component yet
  const loop = 'A product cannot contain itself, even through another assembly.';
  for (const [index, id] of ids.entries()) {
    if (id === selfId || (await contains(db, id, selfId))) errors.add(key(index), loop);
  }
  errors.throwIfAny();
}

/** Whether `assemblyId` holds `productId` at any depth. */
async function contains(db: Db, assemblyId: number, productId: number): Promise<boolean> {
  const seen = new Set<number>([assemblyId]);
  let frontier = [assemblyId];
  while (frontier.length > 0) {
    const rows = await db
      .selectFrom('product_components')
      .select('component_id')
      .where('assembly_id', 'in', frontier)
      .execute();
    frontier = [];
    for (const { component_id } of rows) {
      if (component_id === productId) return true;
      if (!seen.has(component_id)) {
        seen.add(component_id);
        frontier.push(component_id);
      }
    }
  }
  return false;
}

async function replaceCategories(db: Db, productId: number, ids: number[]) {
  await db.deleteFrom('product_categories').where('product_id', '=', productId).execute();
  if (ids.length === 0) return;
  await db
    .insertInto('product_categories')
    .values(ids.map((category_id) => ({ product_id: productId, category_id })))
    .execute();
}

async function replaceImageRows(db: Db, productId: number, images: ImageInput[]) {
  await db.deleteFrom('product_images').where('product_id', '=', productId).execute();
  if (images.length === 0) return;
  await db
    .insertInto('product_images')
    .values(
      images.map((image, position) => ({
        product_id: productId,
        position,
        url: image.url,
        alt_text: image.alt_text ?? null,
      })),
    )
    .execute();
}

async function replaceComponents(db: Db, productId: number, assembly: AssemblyInput | null) {
  await db.deleteFrom('product_components').where('assembly_id', '=', productId).execute();
  if (!assembly) return;
  await db
    .insertInto('product_components')
    .values(
      assembly.components.map((component, position) => ({
        assembly_id: productId,
        component_id: component.product_id,
        position,
        quantity_milli: toMilli(component.quantity),
      })),
    )
    .execute();
}

function columnsOf(input: ProductPatch) {
  const columns: Partial<Omit<ProductRow, 'id' | 'company_id' | 'created_at'>> = {};
  if (input.code !== undefined) columns.code = input.code;
  if (input.name !== undefined) columns.name = input.name;
  if (input.type !== undefined) columns.type = input.type;
  if (input.condition !== undefined) columns.condition = input.condition;
  if (input.unit !== undefined) columns.unit = input.unit;
  if (input.price !== undefined) columns.price_cents = toCents(input.price);
  if (input.ncm !== undefined) columns.ncm = input.ncm;
  // Numbers, not booleans: SQLite binds no booleans and PostgreSQL reads '1' as true.
  if (input.manage_stock !== undefined) columns.manage_stock = input.manage_stock ? 1 : 0;
  return columns;
}

export async function createProduct(
  storage: Storage,
  companyId: number,
  input: ProductInput,
  now: Date,
): Promise<ProductRecord> {
  return storage.db
    .transaction()
    .execute(async (trx) => {
      await assertCodeFree(trx, companyId, input.code);
      await assertCategoriesExist(trx, companyId, input.categories ?? []);
      if (input.assembly) await assertComponentsValid(trx, companyId, undefined, input.assembly);
      const stamp = isoNow(now);
      const row = await trx
        .insertInto('products')
        .values({
          company_id: companyId,
          ncm: null,
          ...columnsOf(input),
          code: input.code,
          name: input.name,
          unit: input.unit,
          price_cents: toCents(input.price),
          manage_stock: input.manage_stock ? 1 : 0,
          type: input.type ?? 'SIMPLE',
          condition: input.condition ?? 'NOT_SPECIFIED',
          created_at: stamp,
          updated_at: stamp,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await replaceCategories(trx, row.id, input.categories ?? []);
      await replaceImageRows(trx, row.id, input.images ?? []);
      await replaceComponents(trx, row.id, input.assembly ?? null);
      return getProduct(trx, companyId, { id: row.id });
    })
    .catch(codeRaceAsTaken);
}

/**
 * PUT replaces every field (left-out optional fields go back to their defaults, lists to
 * empty); PATCH changes what is sent. The assembly rule is checked on the result: a PATCH
 * that turns a product into an ASSEMBLY must send `assembly`; one that turns it into
 * another type drops its components.
 */
export async function updateProduct(
  storage: Storage,
  companyId: number,
  id: number,
  input: ProductPatch,
  mode: 'replace' | 'patch',
  now: Date,
): Promise<ProductRecord> {
  return storage.db
    .transaction()
    .execute(async (trx) => {
      const existing = await lockProductRow(trx, storage.dialect, companyId, id);
      if (input.code !== undefined) await assertCodeFree(trx, companyId, input.code, id);
      if (input.categories) await assertCategoriesExist(trx, companyId, input.categories);
      const type: ProductType = input.type ?? (mode === 'replace' ? 'SIMPLE' : existing.type);
      let assembly: AssemblyInput | null | undefined = input.assembly;
      if (mode === 'patch') {
        if (type === 'ASSEMBLY' && assembly === undefined && existing.type !== 'ASSEMBLY') {
          throw invalidField('assembly', 'The assembly field is required when type is ASSEMBLY.');
        }
        if (type === 'ASSEMBLY' && assembly === null) {
          throw invalidField('assembly', 'The assembly field is required when type is ASSEMBLY.');
        }
        if (type !== 'ASSEMBLY' && assembly) {
          throw invalidField(
            'assembly',
            'The assembly field is prohibited unless type is ASSEMBLY.',
          );
        }
        if (type !== 'ASSEMBLY') assembly = null;
      }
      if (assembly) await assertComponentsValid(trx, companyId, id, assembly);
      const defaults =
        mode === 'replace'
          ? { ncm: null, type: 'SIMPLE' as const, condition: 'NOT_SPECIFIED' as const }
          : {};
      await trx
        .updateTable('products')
        .set({ ...defaults, ...columnsOf(input), updated_at: isoNow(now) })
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .execute();
      const categories = input.categories ?? (mode === 'replace' ? [] : undefined);
      if (categories) await replaceCategories(trx, id, categories);
      const images = input.images ?? (mode === 'replace' ? [] : undefined);
      if (images) await replaceImageRows(trx, id, images);
      if (assembly !== undefined || mode === 'replace') {
        await replaceComponents(trx, id, assembly ?? null);
      }
      return getProduct(trx, companyId, { id });
    })
    .catch(codeRaceAsTaken);
}

/**
 * Deletes a product with its images, category links, lots, balances and movements. A
 * product that is a component of an assembly is refused (409): remove it from the kit
 * first. Offers keep their lines (code and name were copied).
 */
export async function deleteProduct(storage: Storage, companyId: number, id: number) {
  await storage.db.transaction().execute(async (trx) => {
    // Before anything else: writers that reference the product (stock, offers) hold it with a
    // key-share lock from their start, so this waits for them, or they for it, and no one
    // holds half of what the other needs.
    await lockProductRow(trx, storage.dialect, companyId, id, 'delete');
    const usedBy = await trx
      .selectFrom('product_components as pc')
      .innerJoin('products as p', 'p.id', 'pc.assembly_id')
      .select('p.code')
      .where('pc.component_id', '=', id)
      .orderBy('p.code')
      .execute();
    if (usedBy.length > 0) {
      throw new Conflict(
        `The product is a component of ${usedBy.map((row) => row.code).join(', ')}; remove it from those assemblies first.`,
      );
    }
    await trx.deleteFrom('stock_movements').where('product_id', '=', id).execute();
    await trx.deleteFrom('stock_balances').where('product_id', '=', id).execute();
    await trx.deleteFrom('stock_lots').where('product_id', '=', id).execute();
    await trx
      .deleteFrom('products')
      .where('company_id', '=', companyId)
      .where('id', '=', id)
      .execute();
  });
}

// ---- categories -----------------------------------------------------------------------

/** The category then holds exactly these products (duplicates count once). */
export async function syncCategory(
  storage: Storage,
  companyId: number,
  categoryId: number,
  productIds: number[],
): Promise<{ category_id: number; product_ids: number[] }> {
  return storage.db.transaction().execute(async (trx) => {
    let select = trx
      .selectFrom('categories')
      .select('id')
      .where('company_id', '=', companyId)
      .where('id', '=', categoryId);
    // PostgreSQL: one sync of a category at a time. Two at once would both delete the old
    // links and insert their own, and the second insert of a link breaks the primary key.
    if (storage.dialect === 'postgres') select = select.forNoKeyUpdate();
    const category = await select.executeTakeFirst();
    if (!category) throw new NotFound('Category');
    const unique = [...new Set(productIds)];
    if (unique.length > 0) {
      let select = trx
        .selectFrom('products')
        .select('id')
        .where('company_id', '=', companyId)
        .where('id', 'in', unique);
      // Their links change too: lock the products, in id order (see `lockProductRow`).
      if (storage.dialect === 'postgres') select = select.orderBy('id').forNoKeyUpdate();
      const found = await select.execute();
      const errors = new FieldErrors();
      const known = new Set(found.map((row) => row.id));
      errors.unknownIds(productIds, known, (index) => `product_ids.${index}`);
      errors.throwIfAny();
    }
    await trx.deleteFrom('product_categories').where('category_id', '=', categoryId).execute();
    if (unique.length > 0) {
      await trx
        .insertInto('product_categories')
        .values(unique.map((product_id) => ({ product_id, category_id: categoryId })))
        .execute();
    }
    return { category_id: categoryId, product_ids: unique };
  });
}

// ---- images ---------------------------------------------------------------------------

export async function addImage(
  storage: Storage,
  companyId: number,
  productId: number,
  input: ImageInput,
  now: Date,
): Promise<ImageRecord> {
  return storage.db.transaction().execute(async (trx) => {
    await lockProductRow(trx, storage.dialect, companyId, productId);
    const last = await trx
      .selectFrom('product_images')
      .select([
        (eb) => eb.fn.countAll<number>().as('count'),
        (eb) => eb.fn.max('position').as('last'),
      ])
      .where('product_id', '=', productId)
      .executeTakeFirstOrThrow();
    if (Number(last.count) >= maxImagesPerProduct) {
      throw invalidField('url', `A product holds at most ${maxImagesPerProduct} images.`);
    }
    const position = last.last === null ? 0 : Number(last.last) + 1;
    const row = await trx
      .insertInto('product_images')
      .values({ product_id: productId, position, url: input.url, alt_text: input.alt_text ?? null })
      .returningAll()
      .executeTakeFirstOrThrow();
    await touch(trx, productId, now);
    return imageRecordOf(row);
  });
}

export async function replaceImages(
  storage: Storage,
  companyId: number,
  productId: number,
  images: ImageInput[],
  now: Date,
): Promise<ImageRecord[]> {
  return storage.db.transaction().execute(async (trx) => {
    await lockProductRow(trx, storage.dialect, companyId, productId);
    await replaceImageRows(trx, productId, images);
    await touch(trx, productId, now);
    const rows = await trx
      .selectFrom('product_images')
      .selectAll()
      .where('product_id', '=', productId)
      .orderBy('position')
      .execute();
    return rows.map(imageRecordOf);
  });
}

export async function deleteImage(
  storage: Storage,
  companyId: number,
  productId: number,
  imageId: number,
  now: Date,
): Promise<void> {
  await storage.db.transaction().execute(async (trx) => {
    await lockProductRow(trx, storage.dialect, companyId, productId);
    const result = await trx
      .deleteFrom('product_images')
      .where('product_id', '=', productId)
      .where('id', '=', imageId)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new NotFound('Image');
    await touch(trx, productId, now);
  });
}

async function touch(db: Db, productId: number, now: Date) {
  await db
    .updateTable('products')
    .set({ updated_at: isoNow(now) })
    .where('id', '=', productId)
    .execute();
}
