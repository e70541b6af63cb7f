// jest setupFile of the `e2e-alternate` project: the same suites against the sandbox's alternate dialect.
process.env['E2E_DIALECT'] = 'alternate';
