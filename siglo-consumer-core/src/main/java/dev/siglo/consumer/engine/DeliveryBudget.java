package dev.siglo.consumer.engine;

import dev.siglo.consumer.error.CrashLoopException;
import dev.siglo.consumer.store.ClaimResult;

/**
 * What the invoker asks of a message's delivery budget around the message's claim: whether the
 * claim starts a delivery, whether the claim's counts end the message ({@code CRASH_LOOP}), and
 * whether a transient failure is the message's last, so its record is forgotten rather than
 * released. Step claims have none.
 */
interface DeliveryBudget {
  /** The budget of a claim that is no message's: a step's. */
  DeliveryBudget NONE =
      new DeliveryBudget() {
        @Override
        public boolean newDelivery() {
          return true;
        }

        @Override
        public void claimed(ClaimResult.Claimed claim) {}

        @Override
        public boolean lastChance(Exception failure) {
          return false;
        }
      };

  /**
   * @return whether a claim now starts a new delivery of the message
   */
  boolean newDelivery();

  /**
   * Told of the message's claim before its handler runs.
   *
   * @param claim the claim, with the record's counts
   * @throws CrashLoopException when its holders died too often: the handler must not run (the
   *     record is forgotten)
   * @throws RuntimeException any other: the handler must not run now (the claim is released and the
   *     exception rethrown)
   */
  void claimed(ClaimResult.Claimed claim);

  /**
   * @param failure a transient failure of the handler
   * @return whether the message will be dead-lettered for it (its record is then forgotten)
   */
  boolean lastChance(Exception failure);
}
