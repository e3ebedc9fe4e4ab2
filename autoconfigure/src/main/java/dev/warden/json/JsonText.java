package dev.warden.json;

/** How a payload is quoted in a message: whole, up to 200 characters. */
final class JsonText {

	private JsonText() {
	}

	static String abbreviate(String text) {
		return (text.length() > 200) ? text.substring(0, 200) + "..." : text;
	}

}
