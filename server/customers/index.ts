/**
 * What customers offer the other folders. Customers own the customers, their addresses
 * and their relationships.
 */
export { customerExists } from './customer-exists.ts';
