package dev.colony.notify;

import dev.colony.spec.NotifySpec;

/**
 * One notice that an ant needs a human, for the phones ({@link NotifyActivities}).
 *
 * @param need what is needed, stable for one need ("request-3", "pause-billing-1790000000000")
 * @param kind confirmation, billing, auth, budget, errors, fatal or escalation
 * @param urgent pushed even in quiet hours (a budget cap, a parked crash loop)
 * @param text why, in one or two lines
 * @param answer the exact command (or button) that answers it
 * @param round 0 for the first notice, 1, 2, ... for reminders
 * @param atMillis when the workflow asked for it (its clock: quiet hours are judged at this time)
 * @param previousAtMillis for a notice held back by quiet hours and sent when they end: when it was
 *     first asked for (targets that had it then are skipped); 0 otherwise
 */
public record Notice(String colony, String colonyDir, String ant, String workflowId, String need, String kind,
    boolean urgent, String text, String answer, int round, long atMillis, long previousAtMillis, NotifySpec spec) {}
