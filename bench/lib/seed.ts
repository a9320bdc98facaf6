import { copyFileSync } from 'node:fs';
import { createCompany } from '../../server/companies/create-company.ts';
import { createCustomer } from '../../server/customers/create-customer.ts';
import { createCategory } from '../../server/products/create-category.ts';
import { createProduct } from '../../server/products/create-product.ts';
import { createWarehouse } from '../../server/stock/create-warehouse.ts';
import { openStorage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import type { CustomerInput } from '../../shared/customers.ts';
import { permissions } from '../../shared/permissions.ts';
import type { ProductInput } from '../../shared/products.ts';

/** What every request of a scenario needs: the token and the ids it reads. */
export interface Seed {
  token: string;
  companyId: number;
  customerId: number;
  categoryId: number;
  warehouseCode: string;
  /** Codes of the stock-managed products the bulk update sets. */
  productCodes: string[];
}

/** Product names the search scenario looks through: a shop's catalogue, more or less. */
const productWords = ['Pão', 'Bolo', 'Café', 'Queijo', 'Leite', 'Suco', 'Biscoito', 'Torta'];
const productKinds = ['integral', 'de milho', 'caseiro', 'especial', 'light'];

/** A product as an integrator sends one. */
export function sampleProduct(code: string, categoryId: number, index = 0): ProductInput {
  const word = productWords[index % productWords.length]!;
  const kind = productKinds[Math.floor(index / productWords.length) % productKinds.length]!;
  return {
    code,
    name: `${word} ${kind} ${index}`,
    price: 12.5 + (index % 100),
    unit: 'UN',
    manage_stock: true,
    ncm: '19059090',
    categories: [categoryId],
  };
}

/** A customer as an integrator sends one: documents, contacts, two addresses. */
export function sampleCustomer(code?: string): CustomerInput {
  return {
    ...(code !== undefined && { code }),
    name: 'Padaria Pão Quente Ltda',
    type: 'J',
    taxvat: '12.345.678/0001-90',
    telephone: '+55 11 3333-4444',
    mobile: '+55 11 99999-8888',
    email: 'compras@paoquente.example',
    credit_limit: 1500.5,
    addresses: [
      {
        zipcode: '01310100',
        street: 'Avenida Paulista',
        district: 'Bela Vista',
        city: 'São Paulo',
        state: 'SP',
        number: '1000',
        complement: 'Loja 2',
      },
      {
        zipcode: '04538133',
        street: 'Rua Funchal',
        district: 'Vila Olímpia',
        city: 'São Paulo',
        state: 'SP',
        number: '418',
      },
    ],
  };
}

/**
 * Migrates one database file with ShopDesk's migrations, seeds it through the server's own
 * modules (a fixed clock, so every server answers byte-identical bodies), then copies it:
 * each server gets its own file with exactly the same schema, rows and token.
 */
export async function seedDatabases(files: string[]): Promise<Seed> {
  const [first, ...copies] = files;
  const storage = openStorage({ kind: 'sqlite', file: first! });
  await migrateToLatest(storage);
  const fixed = new Date('2026-11-22T10:00:00Z');
  const companyId = await createCompany(storage.db, 'Bench Shop', fixed);
  // A second company with its own customer, so company scoping has something to exclude.
  const other = await createCompany(storage.db, 'Other Shop', fixed);
  await createCustomer(storage, storage.db, other, sampleCustomer('OTHER-1'), fixed);
  const { secret } = await createToken(
    storage.db,
    { companyId, permissions: [...permissions], name: 'bench' },
    fixed,
  );
  const customer = await createCustomer(
    storage,
    storage.db,
    companyId,
    sampleCustomer('C-0001'),
    fixed,
  );
  // Catalogue and stock: 1,000 stock-managed products in one warehouse.
  const warehouseCode = 'MAIN';
  await createWarehouse(storage.db, { companyId, code: warehouseCode, name: 'Main store' }, fixed);
  const categoryId = await createCategory(storage.db, { companyId, name: 'Bakery' }, fixed);
  const productCodes: string[] = [];
  for (let index = 0; index < 1000; index++) {
    const code = `P-${String(index).padStart(4, '0')}`;
    await createProduct(
      storage,
      storage.db,
      companyId,
      sampleProduct(code, categoryId, index),
      fixed,
    );
    productCodes.push(code);
  }
  await storage.close();
  for (const copy of copies) copyFileSync(first!, copy);
  return {
    token: secret,
    companyId,
    customerId: customer.id,
    categoryId,
    warehouseCode,
    productCodes,
  };
}
