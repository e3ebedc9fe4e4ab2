package dev.warden;

/**
 * Thrown when Redis refuses the credentials Warden's connections present (a wrong password, a
 * missing one, or an unknown ACL user): Redis is there, but will not serve this client until its
 * configuration changes, so retrying does not help.
 */
public class RedisAuthenticationException extends RedisUnavailableException {

	private static final long serialVersionUID = 1L;

	/**
	 * Credentials refused by Redis.
	 * @param message what was refused
	 * @param cause the client's failure, Redis's answer in it
	 */
	public RedisAuthenticationException(String message, Throwable cause) {
		super(message, cause);
	}

}
