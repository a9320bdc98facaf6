/** What companies offer the other folders. Companies own the companies table. */
export { companyExists, readCompanyName } from './read-companies.ts';
