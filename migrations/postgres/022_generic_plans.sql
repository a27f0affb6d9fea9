-- A function's statements keep their plans for the connection's life, but while a custom plan looks
-- cheaper than the generic one PostgreSQL plans the statement again at every call, and for these it
-- always does: the custom plan knows how many elements the arrays hold, and planning took much of
-- these functions' time in a batch. Their generic plans are the same index scans, so they are used
-- from the first call.
ALTER FUNCTION pronet_lock_accounts(text[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION pronet_load_states(text[], text) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION pronet_debit_many(text[], text[], integer[], bigint[], text[], text[]) SET plan_cache_mode = force_generic_plan;
