package dev.warden;

/**
 * Thrown at startup when the application's configuration gives Warden nothing it can work with (a
 * Redis connection factory that is not Lettuce's, for one), with what to do about it.
 */
public class WardenConfigurationException extends WardenException {

	private static final long serialVersionUID = 1L;

	/** What to do about it. */
	private final String action;

	/**
	 * A configuration Warden cannot work with.
	 * @param message what is wrong
	 * @param action what to do about it
	 */
	public WardenConfigurationException(String message, String action) {
		super(message);
		this.action = action;
	}

	/**
	 * What to do about it.
	 * @return the action, as the startup failure report gives it
	 */
	public String getAction() {
		return action;
	}

}
