/**
 * npm runs a script from the project's root wherever it was typed, and says where that was in
 * INIT_CWD: a file named on the command line (`npm run verify -- --proof event.tlog-proof`, in
 * an unzipped bundle) is the user's file there. Imported first by every command that reads or
 * writes a user's files, before anything resolves a path.
 */
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
