import { BusinessService } from './businesses/service.js';
import type { Config } from './config.js';
import { ContactService } from './contacts/service.js';
import type { Store } from './db/store.js';
import type { Clock } from './lib/clock.js';
import { SummaryService } from './summary/service.js';
import { TransactionService } from './transactions/service.js';

export interface Services {
  businesses: BusinessService;
  contacts: ContactService;
  transactions: TransactionService;
  summary: SummaryService;
}

/** The rules of the service, shared by the HTTP app, the workers and the admin CLI. */
export function createServices(deps: { store: Store; clock: Clock; config: Config }): Services {
  const { db } = deps.store;
  const { clock } = deps;
  const contacts = new ContactService({ db, clock });
  return {
    businesses: new BusinessService({ db, clock }),
    contacts,
    transactions: new TransactionService({ db, clock, contacts }),
    summary: new SummaryService({ db, clock }),
  };
}
